# The bytes of a bytes-like object for one C call, without a Cython typed memoryview.
#
# Why: acquiring ``cdef const uint8_t[::1] d = obj`` runs Cython's buffer-format validation and
# memoryview-slice set-up on every call: ~0.3 us in a normal build, but 4-7 us in the
# sanitizer + coverage build of the fuzz targets (fuzz/build.py), several times the cost of a
# short scan. The scan entry points (``fastcdc.scan``, ``buzhash64.scan``, ``AESContext.scan``,
# ...) are called once per kernel per fuzzer execution, so they take the buffer this way.
from cpython.buffer cimport PyObject_GetBuffer, PyBuffer_Release, PyBUF_SIMPLE


cdef inline int byte_buffer(object data, Py_buffer *view) except -1:
    """Fill ``view`` with the bytes of ``data`` (any C-contiguous bytes-like object, as
    ``memoryview(data).cast("B")`` accepts, with the same TypeError otherwise).
    The caller must ``PyBuffer_Release(view)`` (try/finally)."""
    PyObject_GetBuffer(memoryview(data).cast("B"), view, PyBUF_SIMPLE)
    return 0
