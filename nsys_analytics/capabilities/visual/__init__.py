"""`visual`: pictures of a profile: a timeline (PNG/SVG), a Perfetto/Chrome trace, Parquet files, an HTML report."""
