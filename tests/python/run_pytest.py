"""Runs one suite of the Python package's tests with pytest; exits 77 (CTest's skip code here)
when the package, torch or pytest is missing, so CTest reports the suite as skipped."""

import argparse
import os
import sys

SKIP = 77
SUITES = {
    "runtime": ["test_runtime.py"],
    "ops": ["test_ops.py", "test_memory.py", "test_docs.py"],
    "autograd": ["test_autograd.py", "test_linear_attention.py"],
    "device": ["test_device.py"],
    "tools": ["test_tools.py"],
    "profile": ["test_profile_check.py"],
    "fx": ["test_fx.py"],
    "examples": ["test_examples.py"],
}


def skip(reason):
    print(f"SKIPPED: {reason}")
    sys.exit(SKIP)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--suite", choices=sorted(SUITES), required=True)
    parser.add_argument("--package", required=True, help="the directory holding aicore/")
    parser.add_argument("--built", required=True, help="ON when the package was configured")
    parser.add_argument("--torch", required=True, help="ON when the torch extension was")
    parser.add_argument("--docs", required=True, help="docs/pytorch.md")
    parser.add_argument("pytest_args", nargs="*")
    args = parser.parse_args()
    if args.built.upper() in ("OFF", "FALSE", "0", ""):
        skip("the aicore Python package was not configured (needs python3-dev and pybind11-dev)")
    pkg = os.path.join(args.package, "aicore")
    if not (os.path.isfile(os.path.join(pkg, "__init__.py")) and
            any(f.startswith("_C.") for f in os.listdir(pkg))):
        skip(f"the aicore Python package is not built in {args.package} (target aicore_python)")
    if args.suite != "runtime":
        if args.torch.upper() in ("OFF", "FALSE", "0", ""):
            skip("the torch extension was not configured (needs python3-torch, libtorch-dev)")
        try:
            import torch  # noqa: F401
        except ImportError as e:
            skip(f"torch is not importable: {e}")
    try:
        import pytest
    except ImportError:
        skip("pytest is not installed (apt-get install python3-pytest)")
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, args.package)
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [args.package] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    os.environ["AICORE_PYTORCH_DOCS"] = args.docs
    files = [os.path.join(here, f) for f in SUITES[args.suite]]
    sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "--rootdir", here] + files +
                         args.pytest_args))


if __name__ == "__main__":
    main()
