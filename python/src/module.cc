// aicore._C: the pybind11 module of the Python package, the runtime basics that need no torch
// (memory statistics, empty_cache, synchronize, devices). A thin layer over runtime_api.h;
// aicore::Error derives from std::runtime_error, so every error reaches Python as RuntimeError.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "python/src/runtime_api.h"

namespace py = pybind11;
namespace api = aicore::python;
namespace aicore::python { void RegisterProfileApi(py::module_& m); }  // profile_api.cc

PYBIND11_MODULE(_C, m) {
  m.doc() = "aicore runtime basics (see the aicore package for the documented functions)";
  m.def("memory_stats", &api::MemoryStatsFlat, py::arg("device") = -1,
        "[(key, value)] of the caching allocator's statistics, torch.cuda.memory_stats' keys");
  m.def("memory_summary", &api::MemorySummary, py::arg("device") = -1);
  m.def("memory_snapshot_json", &api::MemorySnapshotJson, py::arg("device") = -1);
  m.def("dump_memory_snapshot", &api::DumpMemorySnapshot, py::arg("device"), py::arg("path"));
  m.def("record_memory_history", &api::RecordMemoryHistory, py::arg("device"),
        py::arg("enabled"), py::arg("max_entries"));
  m.def("reset_peak_memory_stats", &api::ResetPeakMemoryStats, py::arg("device") = -1);
  m.def("reset_accumulated_memory_stats", &api::ResetAccumulatedMemoryStats,
        py::arg("device") = -1);
  m.def("empty_cache", &api::EmptyCache);
  m.def("synchronize", &api::Synchronize, py::arg("device") = -1,
        py::call_guard<py::gil_scoped_release>());
  m.def("device_count", &api::DeviceCount);
  m.def("current_device", &api::CurrentDevice);
  m.def("set_device", &api::SetDevice, py::arg("device"));
  api::RegisterProfileApi(m);
}
