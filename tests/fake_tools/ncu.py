"""A stand-in `ncu` for the wiring tests (no GPU): runs the program, then copies FAKE_NCU_FIXTURE (an
.ncu-rep) to `-o NAME`.ncu-rep. FAKE_NCU_MODE=nokernels prints ncu's warning and writes nothing."""

import json
import os
import shutil
import subprocess
import sys

TAKES_VALUE = {"--set", "-k", "-c", "--nvtx-include", "-o", "--metrics", "--cache-control", "--clock-control",
               "--replay-mode"}


def main():
    args = sys.argv[1:]
    with open(os.environ["FAKE_NSYS_LOG"], "a") as f:
        f.write(json.dumps({"argv": args}) + "\n")
    i, out = 0, None
    while i < len(args) and args[i].startswith("-"):
        if args[i] == "-o":
            out = args[i + 1]
        i += 2 if args[i] in TAKES_VALUE else 1
    code = subprocess.call(args[i:])
    if os.environ.get("FAKE_NCU_MODE") == "nokernels":
        print("==WARNING== No kernels were profiled.")
        return code
    shutil.copyfile(os.environ["FAKE_NCU_FIXTURE"], out + ".ncu-rep")
    return code


sys.exit(main())
