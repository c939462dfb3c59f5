"""sql and schema: SQL over the normalized views, and what the views hold."""
