"""A stand-in `nsys` for the wiring tests of `profile` (no GPU): it runs the program, then writes a known
fixture as the report. FAKE_NSYS_MODE: report (default), qdstrm (raw stream only), fail (refuses its options).
FAKE_NSYS_FIXTURE: the .sqlite that `export` copies. FAKE_NSYS_LOG: each call's argv and NVTX variable."""

import json
import os
import shutil
import subprocess
import sys


def log(args):
    with open(os.environ["FAKE_NSYS_LOG"], "a") as f:
        f.write(json.dumps({"argv": args, "register_only": os.environ.get("NSYS_NVTX_PROFILER_REGISTER_ONLY")})
                + "\n")


def option(args, name):
    return args[args.index(name) + 1]


def profile(args):
    mode = os.environ.get("FAKE_NSYS_MODE", "report")
    if mode == "fail":
        print("unrecognised option '--bogus'\nusage: nsys profile [<args>] [application] [<application args>]")
        return 1
    rest = args[:]
    while rest and rest[0].startswith("--"):
        rest = rest[2:] if rest[0] == "--output" else rest[1:]
    code = subprocess.call(rest)
    base = option(args, "--output")
    print("Generating '/tmp/nsys-report-0000.qdstrm'")
    if mode == "qdstrm":
        with open(base + ".qdstrm", "w") as f:
            f.write("raw")
        print("Importer error status: Importation failed.")
        return code
    with open(base + ".nsys-rep", "w") as f:
        f.write("fake report")
    print(f"Generated:\n    {base}.nsys-rep")
    return code


def export(args):
    shutil.copyfile(os.environ["FAKE_NSYS_FIXTURE"], option(args, "--output"))
    return 0


def main():
    args = sys.argv[1:]
    log(args)
    if args[:1] == ["--version"]:
        print("NVIDIA Nsight Systems version 0.0-fake")
        return 0
    return {"profile": profile, "export": export}[args[0]](args[1:])


sys.exit(main())
