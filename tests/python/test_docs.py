"""Runs every ```python block of docs/pytorch.md, in order, in one namespace."""

import os
import re

import pytest

DOCS = os.environ.get("AICORE_PYTORCH_DOCS") or os.path.join(
    os.path.dirname(__file__), "..", "..", "docs", "pytorch.md")


def blocks():
    with open(DOCS) as f:
        return re.findall(r"^```python\n(.*?)^```", f.read(), flags=re.S | re.M)


def test_docs_have_examples():
    assert len(blocks()) >= 5


def test_docs_examples_run():
    namespace = {"__name__": "docs_pytorch"}
    for i, code in enumerate(blocks()):
        try:
            exec(compile(code, f"{DOCS}:python block {i + 1}", "exec"), namespace)
        except Exception as e:  # name the block that failed
            pytest.fail(f"docs/pytorch.md python block {i + 1} failed: {e!r}\n{code}")
