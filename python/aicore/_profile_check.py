"""The context managers ``aicore.profile`` and ``aicore.check``: aicore's profiler and sanitizer on
every kernel launched inside a ``with`` block (torch.ops.aicore's, the aicore device's aten
kernels, any kernel of the process), the in-process equivalents of ``aicore profile`` and
``aicore check`` (docs/pytorch.md, "Profiling and checking"). Neither needs torch."""

import sys
import time

from aicore import _C

__all__ = ["profile", "check", "DefectError"]


class profile:
    """Profiles every kernel launched inside the block and models it on ``chip``.

    ``with aicore.profile(chip="ascend910b1", out="prof") as prof: model(x)`` records each launch;
    on exit it prints a per-kernel table of modeled time (``print_table``, to ``file``, default
    stdout) and, when ``out`` is given, writes the reports ``aicore profile`` writes there
    (summary.txt, summary.json, trace.json, *.csv, report.html). Afterwards:

    - ``prof.launches``: one dict per launch, in order (kernel, kernel_us, body_us, block_dim,
      gm_read_bytes, gm_write_bytes, flops, corner, binding_pipe, ...);
    - ``prof.table``: one dict per kernel name (kernel, launches, total_us, mean_us, share,
      gm_bytes), the largest total first; ``prof.total_us``: their sum;
    - ``prof.text``: the printed table; ``prof.wall_s``: the block's host time, of which
      ``prof.host_kernel_ms`` ran aicore kernels on the CPU (each launch's ``host_ms``, begin to
      end); the rest is Python, the dispatcher, the CPU fallback and copies;
    - with ``torch_ops`` (default: when torch is imported and no torch profiler is running
      already; True raises if one is), torch's autograd profiler records
      the torch operators called inside too: ``prof.ops`` has one dict per operator called from
      Python or autograd (name, calls, total_ms: aten::*, aicore::*, autograd nodes), and
      ``prof.stages`` splits the block's time (ms) into "python" (outside any operator),
      "torch ops" (inside operators, outside aicore kernels: dispatch, argument checks, the
      aclnn-style entry points, CPU fallback, copies) and "aicore kernels".

    ``chip`` is a preset name or a chip JSON file (None: each launch's own chip, AICORE_CHIP).
    The kernels still run on their own chip; only the model uses ``chip``. An unknown chip raises
    RuntimeError listing the presets. On an exception inside the block the profiler is detached
    and the exception propagates; no table is printed and no report written.
    """

    def __init__(self, chip=None, out=None, print_table=True, file=None, torch_ops=None):
        self.chip = chip
        self.torch_ops = torch_ops
        self.ops = []
        self.stages = {}
        self._torch_profiler = None
        self.out = None if out is None else str(out)
        self.print_table = print_table
        self.file = file
        self.launches = []
        self.table = []
        self.total_us = 0.0
        self.text = ""
        self.wall_s = 0.0
        self.host_kernel_ms = 0.0
        self._profiler = _C.Profiler(chip or "")  # validates the chip now

    def __enter__(self):
        if self._profiler.attached:
            raise RuntimeError("aicore.profile: this profile is active already; a profile object "
                               "is used by one `with` at a time")
        self._profiler.clear()
        self.ops, self.stages, self._torch_profiler = [], {}, None
        if self.torch_ops or (self.torch_ops is None and "torch" in sys.modules):
            import torch
            self._torch_profiler = torch.autograd.profiler.profile()
            try:
                self._torch_profiler.__enter__()
            except RuntimeError:  # a torch profiler is running already: it keeps the operators
                self._torch_profiler = None
                if self.torch_ops:
                    raise
        self._start = time.perf_counter()
        self._profiler.attach()
        return self

    def __exit__(self, exc_type, exc, tb):
        try:
            if exc_type is None:
                _C.synchronize(-1)  # every launch of the block has ended
        finally:
            self._profiler.detach()
            self.wall_s = time.perf_counter() - self._start
            if self._torch_profiler is not None:
                self._torch_profiler.__exit__(None, None, None)
        if exc_type is not None:
            return False
        self.launches = self._profiler.results()
        self._summarise()
        if self._torch_profiler is not None:
            self._summarise_ops(self._torch_profiler.function_events)
        if self.out is not None:
            self._profiler.write_reports(self.out)
        if self.print_table:
            print(self.text, file=self.file or sys.stdout)
        return False

    def _summarise(self):
        by_kernel = {}
        for r in self.launches:
            row = by_kernel.setdefault(r["kernel"], {
                "kernel": r["kernel"], "launches": 0, "total_us": 0.0, "gm_bytes": 0,
                "host_ms": 0.0, "corner": r["corner"]})
            row["launches"] += 1
            row["total_us"] += r["kernel_us"]
            row["host_ms"] += r["host_ms"]
            row["gm_bytes"] += r["gm_read_bytes"] + r["gm_write_bytes"]
        self.total_us = sum(row["total_us"] for row in by_kernel.values())
        self.table = sorted(by_kernel.values(), key=lambda row: -row["total_us"])
        for row in self.table:
            row["mean_us"] = row["total_us"] / row["launches"]
            row["share"] = row["total_us"] / self.total_us if self.total_us > 0 else 0.0
        chip = self.launches[0]["chip"] if self.launches else (self.chip or "default chip")
        lines = [f"aicore profile: {len(self.launches)} launch"
                 f"{'' if len(self.launches) == 1 else 'es'} modeled on {chip}, "
                 f"{self.total_us:.3f} us in total"
                 + (f", reports in {self.out}" if self.out is not None else "")]
        if self.table:
            width = max(6, max(len(row["kernel"]) for row in self.table))
            lines.append(f"{'kernel':<{width}}  launches  total_us    mean_us   share  "
                         "GM_MiB  host_ms  corner")
            for row in self.table:
                lines.append(f"{row['kernel']:<{width}}  {row['launches']:8d}  "
                             f"{row['total_us']:8.3f}  {row['mean_us']:9.3f}  "
                             f"{100 * row['share']:5.1f}%  {row['gm_bytes'] / 2**20:6.2f}  "
                             f"{row['host_ms']:7.2f}  {row['corner']}")
        self.host_kernel_ms = sum(r["host_ms"] for r in self.launches)
        wall_ms = 1e3 * self.wall_s
        lines.append(f"host: {wall_ms:.2f} ms in the block, {self.host_kernel_ms:.2f} ms of it "
                     "running aicore kernels on the CPU, "
                     f"{max(0.0, wall_ms - self.host_kernel_ms):.2f} ms elsewhere (Python, "
                     "dispatch, CPU fallback, copies)")
        self.text = "\n".join(lines)

    def _summarise_ops(self, events):
        by_name = {}
        for e in events:
            if e.cpu_parent is not None:
                continue  # called by another operator: inside its time
            row = by_name.setdefault(e.name, {"name": e.name, "calls": 0, "total_ms": 0.0})
            row["calls"] += 1
            row["total_ms"] += e.cpu_time_total / 1e3
        self.ops = sorted(by_name.values(), key=lambda row: -row["total_ms"])
        wall_ms = 1e3 * self.wall_s
        in_ops = min(wall_ms, sum(row["total_ms"] for row in self.ops))
        kernels = min(self.host_kernel_ms, wall_ms)
        # kernels launched outside any torch operator (ctypes, pybind11) count as kernels only
        self.stages = {"python": wall_ms - max(in_ops, kernels),
                       "torch ops": max(0.0, in_ops - kernels), "aicore kernels": kernels}
        total = sum(self.stages.values()) or 1.0
        lines = ["stages: " + ", ".join(f"{name} {ms:.2f} ms ({100 * ms / total:.0f}%)"
                                        for name, ms in self.stages.items())]
        if self.ops:
            width = max(len(row["name"]) for row in self.ops[:8])
            lines.append(f"{'torch operator':<{width}}  calls  total_ms")
            lines += [f"{row['name']:<{width}}  {row['calls']:5d}  {row['total_ms']:8.2f}"
                      for row in self.ops[:8]]
            if len(self.ops) > 8:
                lines.append(f"... {len(self.ops) - 8} more operators (prof.ops)")
        self.text += "\n" + "\n".join(lines)

    def __repr__(self):
        return self.text or f"aicore.profile(chip={self.chip!r}, out={self.out!r})"


class DefectError(RuntimeError):
    """What ``aicore.check`` raises when the sanitizer found defects; ``reports`` holds one dict
    per distinct defect (kind, tool, kernel, api, file, line, core, count, text)."""

    def __init__(self, message, reports, failed_launches):
        super().__init__(message)
        self.reports = reports
        self.failed_launches = failed_launches


class check:
    """Runs aicore's sanitizer on every kernel launched inside the block.

    ``with aicore.check(): model(x)`` attaches the sanitizer with ``tools`` ("all", or any of
    memcheck, racecheck, synccheck, initcheck, comma-separated). On exit it raises
    ``aicore.DefectError`` (a RuntimeError) naming each defect's kernel, kind and call site when
    the sanitizer reported any, or when a launch inside failed and the failure was swallowed.
    ``leaks=True`` also reports device memory allocated inside and still live at exit (off by
    default: tensors that outlive the block are not leaks). ``chk.reports`` holds the reports;
    ``chk.raise_if_defects()`` raises early, inside the block. An exception from the block
    propagates unchanged (the sanitizer is detached first).
    """

    def __init__(self, tools="all", leaks=False):
        self.tools = tools
        self.leaks = leaks
        self.reports = []
        self.failed_launches = 0
        self._sanitizer = None

    def __enter__(self):
        if self._sanitizer is not None:
            raise RuntimeError("aicore.check: this check is active already")
        self.reports = []
        self.failed_launches = 0
        self._sanitizer = _C.Sanitizer(self.tools)
        return self

    def raise_if_defects(self):
        """Raises DefectError when the sanitizer has reported a defect so far (inside the block:
        after waiting for the launches queued)."""
        if self._sanitizer is not None:
            _C.synchronize(-1)
            self.reports = self._sanitizer.reports()
            self.failed_launches = self._sanitizer.failed_launches()
        if self.reports or self.failed_launches:
            raise DefectError(self._message(), self.reports, self.failed_launches)

    def __exit__(self, exc_type, exc, tb):
        sanitizer, self._sanitizer = self._sanitizer, None
        try:
            if exc_type is None:
                _C.synchronize(-1)
                if self.leaks:
                    sanitizer.check_leaks()
        finally:
            sanitizer.close()
            self.reports = sanitizer.reports()
            self.failed_launches = sanitizer.failed_launches()
        if exc_type is None and (self.reports or self.failed_launches):
            raise DefectError(self._message(), self.reports, self.failed_launches)
        return False

    def _message(self):
        kernels = sorted({r["kernel"] for r in self.reports if r["kernel"]})
        parts = [f"aicore.check ({self.tools}): {len(self.reports)} defect(s)"
                 + (f" in kernel(s) {', '.join(kernels)}" if kernels else "")
                 + (f", {self.failed_launches} failed launch(es)" if self.failed_launches
                    else "")]
        shown = self.reports[:10]
        parts += [r["text"] for r in shown]
        if len(self.reports) > len(shown):
            parts.append(f"... and {len(self.reports) - len(shown)} more (DefectError.reports)")
        return "\n".join(parts)
