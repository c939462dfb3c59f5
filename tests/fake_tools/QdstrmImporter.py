"""A stand-in for nsys' QdstrmImporter: `-i X.qdstrm` writes X.nsys-rep when FAKE_IMPORTER_OK=1, else fails as
the real one does on an image without libdw.so.1."""

import os
import sys

stream = sys.argv[sys.argv.index("-i") + 1]
if os.environ.get("FAKE_IMPORTER_OK") == "1":
    with open(stream[: -len(".qdstrm")] + ".nsys-rep", "w") as f:
        f.write("fake report")
    sys.exit(0)
print("QdstrmImporter: error while loading shared libraries: libdw.so.1: cannot open shared object file")
sys.exit(127)
