// aicore._C.Profiler and aicore._C.Sanitizer: the profiler (aicore/perf/profiler.h) and the
// sanitizer (aicore/check/sanitizer.h) attached to the kernels launched in this process, for the
// context managers aicore.profile and aicore.check (python/aicore/__init__.py, docs/pytorch.md).
// Both see every launch of every thread (torch.ops.aicore's, the device's aten kernels) because
// the pybind11 module and the torch extension share libaicore_shared.so's instruction funnel.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "aicore/arch/chip.h"
#include "aicore/check/report.h"
#include "aicore/check/sanitizer.h"
#include "aicore/core/status.h"
#include "aicore/perf/profiler.h"
#include "aicore/runtime/launch.h"
#include "aicore/sim/funnel.h"

namespace py = pybind11;

namespace aicore::python {

namespace {

// Host wall time of each launch, from its begin to its end (the CPU's time running the kernel's
// blocks), in launch order. Launches run one at a time, so begin and end pair up.
class LaunchTimer : public sim::Observer {
 public:
  void OnInstr(sim::Core& /*core*/, const sim::Instr& /*instr*/) override {}
  void OnLaunchBegin(const char* /*kernel*/, uint32_t /*block_dim*/) override {
    std::lock_guard<std::mutex> lock(mu_);
    begin_ = std::chrono::steady_clock::now();
  }
  void OnLaunchEnd(const char* /*kernel*/) override {
    const auto end = std::chrono::steady_clock::now();
    std::lock_guard<std::mutex> lock(mu_);
    ms_.push_back(std::chrono::duration<double, std::milli>(end - begin_).count());
  }
  std::vector<double> ms() {
    std::lock_guard<std::mutex> lock(mu_);
    return ms_;
  }
  void Clear() {
    std::lock_guard<std::mutex> lock(mu_);
    ms_.clear();
  }

 private:
  std::mutex mu_;
  std::chrono::steady_clock::time_point begin_;
  std::vector<double> ms_;
};

// A Profiler that records while attached; `chip` empty replays each launch on its own chip.
class PyProfiler {
 public:
  explicit PyProfiler(const std::string& chip) {
    if (chip.empty()) {
      profiler_ = std::make_unique<perf::Profiler>();
    } else {
      // Throws aicore::Error (RuntimeError) listing the presets for an unknown name.
      profiler_ = std::make_unique<perf::Profiler>(arch::LoadChip(chip));
    }
  }

  ~PyProfiler() { Detach(); }

  void Attach() {
    if (profiler_->attached()) return;
    sim::AttachObserver(&timer_);
    profiler_->Attach();
  }
  void Detach() {
    if (!profiler_->attached()) return;
    profiler_->Detach();
    sim::DetachObserver(&timer_);
  }
  bool attached() const { return profiler_->attached(); }
  void Clear() {
    profiler_->Clear();
    timer_.Clear();
  }
  size_t Launches() const { return profiler_->recorder().launches().size(); }

  // One dict per recorded launch, in launch order (the replay runs without the GIL).
  py::list Results() {
    const std::vector<perf::LaunchResult>* results = nullptr;
    {
      py::gil_scoped_release release;
      results = &profiler_->Results();
    }
    // The timer is attached before the recorder and detached after it, so it saw every recorded
    // launch; a launch that began before the recorder was attached is the timer's extra first.
    const std::vector<double> host_ms = timer_.ms();
    const size_t skip = host_ms.size() >= results->size() ? host_ms.size() - results->size() : 0;
    py::list out;
    for (size_t i = 0; i < results->size(); ++i) {
      const perf::LaunchResult& r = (*results)[i];
      py::dict d;
      d["host_ms"] = skip + i < host_ms.size() ? host_ms[skip + i] : 0.0;
      d["kernel"] = r.kernel;
      d["chip"] = r.chip;
      d["block_dim"] = r.block_dim;
      d["kernel_us"] = r.kernel_us;
      d["body_us"] = r.body_us;
      d["launch_overhead_us"] = r.launch_overhead_us;
      d["gm_read_bytes"] = r.gm_read_bytes;
      d["gm_write_bytes"] = r.gm_write_bytes;
      d["flops"] = r.flops;
      d["instructions"] = r.instructions;
      d["achieved_gbps"] = r.achieved_gbps;
      d["corner"] = r.triangle.corner;
      d["binding_pipe"] = r.triangle.binding_pipe;
      d["binding_ratio"] = r.triangle.binding_ratio;
      out.append(std::move(d));
    }
    return out;
  }

  // Writes the reports `aicore profile` writes (summary.txt/json, trace.json, CSVs, report.html).
  void WriteReports(const std::string& dir) {
    Status st;
    {
      py::gil_scoped_release release;
      st = profiler_->WriteReports(dir);
    }
    if (!st.ok()) throw Error(st);
  }

 private:
  std::unique_ptr<perf::Profiler> profiler_;
  LaunchTimer timer_;
};

// A Sanitizer attached from construction until Close() (or destruction), plus the count of
// failed launches in that span (aicore::LaunchFailureCount, which `aicore check` counts too).
class PySanitizer {
 public:
  explicit PySanitizer(const std::string& tools) {
    uint32_t mask = 0;
    if (!check::ParseTools(tools, &mask)) {
      throw Error(Status(StatusCode::kInvalidArgument,
                         StrCat("aicore.check: tools '", tools, "' is not memcheck, racecheck, "
                                "synccheck, initcheck or all (or a comma-separated list)")));
    }
    check::SanitizerOptions options;
    options.tools = mask;
    tools_ = check::ToolsName(mask);
    failures_at_start_ = LaunchFailureCount();
    sanitizer_ = std::make_unique<check::Sanitizer>(options);
  }

  // Detaches the sanitizer, keeping its reports. Idempotent.
  void Close() {
    if (!sanitizer_) return;
    reports_ = sanitizer_->reports();
    failed_launches_ = LaunchFailureCount() - failures_at_start_;
    sanitizer_.reset();
  }

  // Adds GM leak reports for allocations made since construction and still live (memcheck).
  size_t CheckLeaks() { return sanitizer_ ? sanitizer_->CheckLeaks() : 0; }

  py::list Reports() const {
    py::list out;
    for (const check::Report& r : sanitizer_ ? sanitizer_->reports() : reports_) {
      py::dict d;
      d["kind"] = std::string(check::DefectName(r.kind));
      d["tool"] = check::ToolsName(check::ToolOf(r.kind));
      d["kernel"] = r.kernel;
      d["api"] = r.site.api;
      d["file"] = r.site.file;
      d["line"] = r.site.line;
      d["core"] = r.site.core;
      d["count"] = r.count;
      d["text"] = r.ToString();
      out.append(std::move(d));
    }
    return out;
  }

  size_t FailedLaunches() const {
    return sanitizer_ ? LaunchFailureCount() - failures_at_start_ : failed_launches_;
  }
  const std::string& tools() const { return tools_; }

 private:
  std::unique_ptr<check::Sanitizer> sanitizer_;
  std::vector<check::Report> reports_;
  std::string tools_;
  size_t failures_at_start_ = 0;
  size_t failed_launches_ = 0;
};

}  // namespace

// Adds Profiler and Sanitizer to the module `m` (aicore._C).
void RegisterProfileApi(py::module_& m) {
  py::class_<PyProfiler>(m, "Profiler",
                         "aicore's profiler: records every kernel launch while attached and "
                         "models it on `chip` (empty: the chip each launch ran on)")
      .def(py::init<const std::string&>(), py::arg("chip") = "")
      .def("attach", &PyProfiler::Attach)
      .def("detach", &PyProfiler::Detach)
      .def_property_readonly("attached", &PyProfiler::attached)
      .def("clear", &PyProfiler::Clear)
      .def("launches", &PyProfiler::Launches, "the number of launches recorded")
      .def("results", &PyProfiler::Results, "one dict per launch: kernel, kernel_us, ...")
      .def("write_reports", &PyProfiler::WriteReports, py::arg("dir"));
  py::class_<PySanitizer>(m, "Sanitizer",
                          "aicore's sanitizer, attached to every kernel launch from construction "
                          "until close()")
      .def(py::init<const std::string&>(), py::arg("tools") = "all")
      .def("close", &PySanitizer::Close)
      .def("check_leaks", &PySanitizer::CheckLeaks)
      .def("reports", &PySanitizer::Reports, "one dict per distinct defect: kind, kernel, text")
      .def("failed_launches", &PySanitizer::FailedLaunches)
      .def_property_readonly("tools", &PySanitizer::tools);
}

}  // namespace aicore::python
