#include "rows_jsonl.h"

#include <cmath>
#include <cstdio>
#include <memory>
#include <string_view>

#include "io/writers/json_text.h"  // the engine's own escaping, shared with its results writer

namespace py = pybind11;

namespace tala::python {

namespace {
[[noreturn]] void RaiseOsError(const std::string& path) {
  PyErr_SetFromErrnoWithFilename(PyExc_OSError, path.c_str());
  throw py::error_already_set();
}

// pandas' missing values (pd.NA, pd.NaT), known by their types' names: pandas need not be loaded.
bool IsPandasMissing(PyObject* v) {
  std::string_view type = Py_TYPE(v)->tp_name;  // "pandas._libs.missing.NAType"
  type = type.substr(type.rfind('.') + 1);
  return type == "NAType" || type == "NaTType";
}

class JsonlWriter {
 public:
  JsonlWriter() : dumps_(py::module_::import("json").attr("dumps")) {}

  void Value(PyObject* v, int depth) {
    if (depth > 200) throw py::value_error("a row nests deeper than 200 levels");
    if (v == Py_None) {
      out_ += "null";
    } else if (v == Py_True || v == Py_False) {
      out_ += v == Py_True ? "true" : "false";
    } else if (PyUnicode_Check(v)) {
      String(v);
    } else if (PyLong_CheckExact(v)) {
      int overflow = 0;
      long long n = PyLong_AsLongLongAndOverflow(v, &overflow);
      out_ += overflow == 0 ? std::to_string(n) : py::str(v).cast<std::string>();
    } else if (PyFloat_CheckExact(v)) {
      double d = PyFloat_AS_DOUBLE(v);
      // Like a missing DataFrame cell: NaN is no value. Infinity has no JSON form either.
      if (std::isfinite(d)) {
        io::AppendJsonNumber(out_, d);
      } else {
        out_ += "null";
      }
    } else if (PyDict_Check(v)) {
      Object(v, depth);
    } else if (PyList_Check(v) || PyTuple_Check(v)) {
      py::sequence items = py::reinterpret_borrow<py::sequence>(v);
      out_ += '[';
      bool first = true;
      for (py::handle item : items) {
        if (!first) out_ += ',';
        first = false;
        Value(item.ptr(), depth + 1);
      }
      out_ += ']';
    } else if (IsPandasMissing(v)) {
      // pandas' missing value (pd.NA, pd.NaT) is no value, as None is: never the text "<NA>".
      out_ += "null";
    } else if (py::hasattr(v, "tolist")) {
      // numpy scalars and arrays: their plain Python value.
      py::object plain = py::handle(v).attr("tolist")();
      Value(plain.ptr(), depth + 1);
    } else {
      // Anything else (int and float subclasses, dates) as json.dumps(v, default=str) writes it.
      out_ += dumps_(py::handle(v), py::arg("ensure_ascii") = false,
                     py::arg("default") = py::module_::import("builtins").attr("str"))
                  .cast<std::string>();
    }
  }

  void Object(PyObject* dict, int depth) {
    out_ += '{';
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    bool first = true;
    while (PyDict_Next(dict, &pos, &key, &value)) {
      if (!first) out_ += ',';
      first = false;
      if (PyUnicode_Check(key)) {
        String(key);
      } else {
        py::str text(key);
        String(text.ptr());
      }
      out_ += ':';
      Value(value, depth + 1);
    }
    out_ += '}';
  }

  std::string& text() { return out_; }

 private:
  void String(PyObject* s) {
    Py_ssize_t size = 0;
    const char* utf8 = PyUnicode_AsUTF8AndSize(s, &size);
    if (utf8 == nullptr) throw py::error_already_set();  // lone surrogates
    io::AppendJsonString(out_, std::string_view(utf8, static_cast<size_t>(size)));
  }

  py::object dumps_;
  std::string out_;
};
}  // namespace

void WriteRowsJsonl(const py::iterable& rows, const std::string& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "wb"),
                                                       &std::fclose);
  if (!file) RaiseOsError(path);
  JsonlWriter writer;
  size_t index = 0;
  for (py::handle row : rows) {
    if (!PyDict_Check(row.ptr())) {
      throw py::type_error("tala.evaluate: each row must be a dict, got " +
                           py::str(py::type::handle_of(row).attr("__name__")).cast<std::string>() +
                           " (row " + std::to_string(index + 1) + ")");
    }
    writer.Object(row.ptr(), 0);
    writer.text() += '\n';
    if (writer.text().size() >= (1 << 20)) {
      if (std::fwrite(writer.text().data(), 1, writer.text().size(), file.get()) !=
          writer.text().size()) {
        RaiseOsError(path);
      }
      writer.text().clear();
    }
    ++index;
  }
  std::string& rest = writer.text();
  if (std::fwrite(rest.data(), 1, rest.size(), file.get()) != rest.size() ||
      std::fflush(file.get()) != 0) {
    RaiseOsError(path);
  }
}

}  // namespace tala::python
