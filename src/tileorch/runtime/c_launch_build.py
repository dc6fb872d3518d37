"""The C source of tileorch's compiled launcher (:mod:`tileorch.runtime.c_launch`) and its build
with the system C compiler.  Imported only where a build is needed (the first launch on a machine
that has none built, tests): a process that finds the extension built loads it without this
module (nor ``subprocess``, ``tempfile``, ``hashlib``, ``sysconfig``).

:func:`build` writes :data:`SOURCE` to a temporary file next to its target and compiles it with
``-O2 -shared -fPIC`` against Python's headers, then renames the result into place (processes
building at once each write their own; one wins).  At exit a compiler still running for a
background build is killed and its temporary files removed (only those this module started)."""

from __future__ import annotations

import atexit
import contextlib
import os
import shlex
import subprocess
import sys
import sysconfig
import tempfile

SOURCE = r"""
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* cuda.h's CUlaunchAttribute (id, padding, a 64-byte value) and CUlaunchConfig (56 bytes on a
   64-bit host), written from the header's documented layout */
typedef struct { unsigned int x, y, z; } cl_dim3;
typedef struct { int id; char pad[4]; union { char raw[64]; cl_dim3 cluster; int pdl; } value; } cl_attribute;
typedef struct {
    unsigned int grid_x, grid_y, grid_z, block_x, block_y, block_z, smem;
    void *stream;
    cl_attribute *attrs;
    unsigned int n_attrs;
} cl_config;
typedef int (*cl_launch_ex)(const cl_config *, void *, void **, void **);

#define CL_STACK 64  /* parameters (and pointers) a call keeps on its stack; more: from the heap */
#define CL_MEMO_PTRS 11  /* tensors a Memo re-points (their overlapping pairs: bits of one 64-bit word) */

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *dict;
    cl_launch_ex launch_ex;
    void *function;
    void **table;
    Py_ssize_t n_params, n_slots;  /* n_slots -1: no pointer launches */
    Py_ssize_t *slots;
    cl_config config;
    cl_attribute attr[2];  /* the cluster dimension, then programmatic stream serialization (PDL) */
    PyObject *device, *fail, *keep;
} Launcher;

static PyObject *s_poisoned_by, *s_require_healthy;

/* an int as 64 unsigned bits (0, or -1 with OverflowError / TypeError set); a word-sized int without
   _PyLong_AsByteArray (what PyLong_AsUnsignedLongLong takes for any int of more than one digit) */
static int as_u64(PyObject *o, unsigned long long *out) {
    int overflow;
    long v = PyLong_AsLongAndOverflow(o, &overflow);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (overflow == 0) {
        if (v < 0) {
            PyErr_SetString(PyExc_OverflowError, "can't convert negative int to unsigned");
            return -1;
        }
        *out = (unsigned long long)v;
        return 0;
    }
    unsigned long long u = PyLong_AsUnsignedLongLong(o);
    if (u == (unsigned long long)-1 && PyErr_Occurred()) return -1;
    *out = u;
    return 0;
}

/* a pointer as a positive long long, else 0 (no exception left set) */
static long long as_pointer(PyObject *o) {
    if (!PyLong_CheckExact(o)) return 0;
    int overflow;
    long v = PyLong_AsLongAndOverflow(o, &overflow);
    if (v == -1 && PyErr_Occurred()) { PyErr_Clear(); return 0; }
    return overflow || v < 0 ? 0 : (long long)v;
}

static int check_device(Launcher *self) {
    if (self->device == Py_None) return 0;
    PyObject *p = PyObject_GetAttr(self->device, s_poisoned_by);
    if (p == NULL) return -1;
    int poisoned = p != Py_None;
    Py_DECREF(p);
    if (!poisoned) return 0;
    PyObject *r = PyObject_CallMethodNoArgs(self->device, s_require_healthy);
    if (r == NULL) return -1;
    Py_DECREF(r);
    return 0;
}

static PyObject *failed(Launcher *self, int code) {
    PyObject *c = PyLong_FromLong(code);
    if (c == NULL) return NULL;
    PyObject *r = PyObject_CallOneArg(self->fail, c);
    Py_DECREF(c);
    if (r == NULL) return NULL;
    Py_DECREF(r);
    PyErr_Format(PyExc_RuntimeError, "cuLaunchKernelEx returned CUresult %d", code);
    return NULL;
}

static PyObject *launcher_call(PyObject *op, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    Launcher *self = (Launcher *)op;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (kwnames != NULL && PyTuple_GET_SIZE(kwnames) != 0) {
        PyErr_SetString(PyExc_TypeError, "a launcher takes its arguments by position: (stream[, pointers])");
        return NULL;
    }
    if (nargs > 2 || (nargs == 2 && self->n_slots < 0)) {
        PyErr_Format(PyExc_TypeError, "this launcher takes %s, got %zd arguments",
                     self->n_slots < 0 ? "(stream=0)" : "(stream, pointers)", nargs);
        return NULL;
    }
    void *stream = NULL;
    if (nargs >= 1) {
        if (!PyLong_Check(args[0])) {
            PyErr_Format(PyExc_TypeError, "the stream must be an int handle, got %.100s", Py_TYPE(args[0])->tp_name);
            return NULL;
        }
        unsigned long long s;
        if (as_u64(args[0], &s) < 0) return NULL;
        stream = (void *)(uintptr_t)s;
    }
    if (check_device(self) < 0) return NULL;
    cl_config config = self->config;
    config.stream = stream;
    config.attrs = config.n_attrs ? self->attr : NULL;
    void **params = self->table;
    void *table_stack[CL_STACK];
    unsigned long long values_stack[CL_STACK];
    void **table = NULL;
    unsigned long long *values = NULL;
    if (nargs == 2) {
        PyObject *seq = PySequence_Fast(args[1], "the pointers must be a tuple or list of ints");
        if (seq == NULL) return NULL;
        Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
        if (n != self->n_slots) {
            PyErr_Format(PyExc_ValueError, "%zd pointers expected, got %zd", self->n_slots, n);
            Py_DECREF(seq);
            return NULL;
        }
        table = self->n_params <= CL_STACK ? table_stack : PyMem_Malloc(sizeof(void *) * self->n_params);
        values = n <= CL_STACK ? values_stack : PyMem_Malloc(sizeof(unsigned long long) * (n ? n : 1));
        if (table == NULL || values == NULL) {
            Py_DECREF(seq);
            if (table != NULL && table != table_stack) PyMem_Free(table);
            if (values != NULL && values != values_stack) PyMem_Free(values);
            return PyErr_NoMemory();
        }
        PyObject **items = PySequence_Fast_ITEMS(seq);
        for (Py_ssize_t i = 0; i < n; i++) {
            if (!PyLong_Check(items[i])) {
                PyErr_Format(PyExc_TypeError, "a pointer must be an int, got %.100s", Py_TYPE(items[i])->tp_name);
            }
            if (PyErr_Occurred() || as_u64(items[i], &values[i]) < 0) {
                Py_DECREF(seq);
                if (table != table_stack) PyMem_Free(table);
                if (values != values_stack) PyMem_Free(values);
                return NULL;
            }
        }
        Py_DECREF(seq);
        if (self->n_params) memcpy(table, self->table, sizeof(void *) * self->n_params);
        for (Py_ssize_t i = 0; i < n; i++) table[self->slots[i]] = &values[i];
        params = self->n_params ? table : self->table;
    }
    int code;
    Py_BEGIN_ALLOW_THREADS
    code = self->launch_ex(&config, self->function, params, NULL);
    Py_END_ALLOW_THREADS
    if (table != NULL && table != table_stack) PyMem_Free(table);
    if (values != NULL && values != values_stack) PyMem_Free(values);
    if (code != 0) return failed(self, code);
    Py_RETURN_NONE;
}

static PyObject *launcher_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
    unsigned long long launch_ex, function, table;
    unsigned int g[3], b[3], smem;
    PyObject *cluster, *slots, *device, *fail, *keep;
    Py_ssize_t n_params;
    int pdl = 0;
    if (kw != NULL && PyDict_GET_SIZE(kw) != 0) {
        PyErr_SetString(PyExc_TypeError, "Launcher takes its arguments by position");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "KKK(III)(III)IOOnOOO|p:Launcher", &launch_ex, &function, &table, &g[0], &g[1], &g[2],
                          &b[0], &b[1], &b[2], &smem, &cluster, &slots, &n_params, &device, &fail, &keep, &pdl))
        return NULL;
    if (launch_ex == 0 || n_params < 0 || (n_params > 0 && table == 0)) {
        PyErr_SetString(PyExc_ValueError, "Launcher: no cuLaunchKernelEx, or a parameter count without a table");
        return NULL;
    }
    Launcher *self = (Launcher *)type->tp_alloc(type, 0);
    if (self == NULL) return NULL;
    self->vectorcall = launcher_call;
    self->launch_ex = (cl_launch_ex)(uintptr_t)launch_ex;
    self->function = (void *)(uintptr_t)function;
    self->table = (void **)(uintptr_t)table;
    self->n_params = n_params;
    self->n_slots = -1;
    memset(&self->config, 0, sizeof(self->config));
    memset(self->attr, 0, sizeof(self->attr));
    self->config.grid_x = g[0]; self->config.grid_y = g[1]; self->config.grid_z = g[2];
    self->config.block_x = b[0]; self->config.block_y = b[1]; self->config.block_z = b[2];
    self->config.smem = smem;
    if (cluster != Py_None) {
        if (!PyArg_ParseTuple(cluster, "III", &self->attr[0].value.cluster.x, &self->attr[0].value.cluster.y,
                              &self->attr[0].value.cluster.z)) {
            Py_DECREF(self);
            return NULL;
        }
        self->attr[0].id = 4;  /* CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION */
        self->config.n_attrs = 1;
    }
    if (pdl) {  /* only for a kernel compiled with griddepcontrol.wait (runtime/module.py, Kernel.pdl) */
        cl_attribute *a = &self->attr[self->config.n_attrs];
        a->id = 6;  /* CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION */
        a->value.pdl = 1;
        self->config.n_attrs += 1;
    }
    if (slots != Py_None) {
        PyObject *seq = PySequence_Fast(slots, "slots must be a tuple or list of ints");
        if (seq == NULL) { Py_DECREF(self); return NULL; }
        Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
        self->slots = PyMem_Malloc(sizeof(Py_ssize_t) * (n ? n : 1));
        if (self->slots == NULL) { Py_DECREF(seq); Py_DECREF(self); return PyErr_NoMemory(); }
        for (Py_ssize_t i = 0; i < n; i++) {
            Py_ssize_t s = PyLong_AsSsize_t(PySequence_Fast_GET_ITEM(seq, i));
            if (s == -1 && PyErr_Occurred()) { Py_DECREF(seq); Py_DECREF(self); return NULL; }
            if (s < 0 || s >= n_params) {
                PyErr_Format(PyExc_ValueError, "slot %zd is not one of the %zd parameters", s, n_params);
                Py_DECREF(seq); Py_DECREF(self);
                return NULL;
            }
            self->slots[i] = s;
        }
        self->n_slots = n;
        Py_DECREF(seq);
    }
    Py_INCREF(device); self->device = device;
    Py_INCREF(fail); self->fail = fail;
    Py_INCREF(keep); self->keep = keep;
    return (PyObject *)self;
}

static int launcher_traverse(Launcher *self, visitproc visit, void *arg) {
    Py_VISIT(self->dict);
    Py_VISIT(self->device);
    Py_VISIT(self->fail);
    Py_VISIT(self->keep);
    return 0;
}

static int launcher_clear(Launcher *self) {
    Py_CLEAR(self->dict);
    Py_CLEAR(self->device);
    Py_CLEAR(self->fail);
    Py_CLEAR(self->keep);
    return 0;
}

static void launcher_dealloc(Launcher *self) {
    PyObject_GC_UnTrack(self);
    launcher_clear(self);
    PyMem_Free(self->slots);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyGetSetDef launcher_getset[] = {
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL},
    {NULL}
};

static PyTypeObject LauncherType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "tileorch_c_launch.Launcher",
    .tp_basicsize = sizeof(Launcher),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "A bound kernel launch: launcher(stream=0) or launcher(stream, pointers).",
    .tp_new = launcher_new,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(Launcher, vectorcall),
    .tp_dictoffset = offsetof(Launcher, dict),
    .tp_traverse = (traverseproc)launcher_traverse,
    .tp_clear = (inquiry)launcher_clear,
    .tp_dealloc = (destructor)launcher_dealloc,
    .tp_getset = launcher_getset,
};


/* ------------------------------------------------------------------ Memo: a repeated call's key in C

   Memo(types, kinds, stream_types): one kernel's last launched call (cutile_bound's hot launchers): per argument
   its class (types) and kind ('T' a torch tensor: data_ptr(), shape, stride(), dtype, device read
   as the key reads them; 'c' an array read through __cuda_array_interface__: its pointer, shape,
   strides, typestr as the key reads them; 'f' a float, compared by its bits; 'i' an int or bool, compared by value).
   memo(stream, grid, args, arch, schedule, tiles): when the call's facts equal the recorded call's
   (the grid an int or a tuple of ints, as plain_grid() asks) and the stream is an int or the
   an object of one of the classes of the set stream_types (torch's stream classes, as
   cutile_bound's stream_handle() has seen them: its cuda_stream when its device_index is 0, the
   last one's kept), launch(handle) and True; otherwise (or on any exception while reading)
   what miss(...) -- the Python hot launcher, attach() -- returns for the same arguments.
   record(stream, grid, args, arch, schedule, tiles, launch, stream_object, handle): the call just
   launched through launch(handle); stream_object (None: none) the non-int stream whose handle is
   handle. */

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *dict;
    PyObject *miss, *types, *kinds;  /* kinds: a bytes object, one letter per argument */
    PyObject *stream_types;          /* a set: the torch stream classes (cutile_bound._TORCH_STREAM_TYPES) */
    PyObject *facts;                 /* NULL or the recorded call's facts (a tuple) */
    PyObject *launch, *stream, *handle;
    /* re-pointing (the recorded call's layout has a pointer launcher, cutile_bound's keep_layout):
       go(handle, pointers) launches it with other pointers of the same alignments and overlaps */
    PyObject *go;
    Py_ssize_t n_ptrs;
    long long ptrs[CL_MEMO_PTRS], lo[CL_MEMO_PTRS], hi[CL_MEMO_PTRS];
    long long bound[CL_MEMO_PTRS];  /* the layout's bound call's pointers (that call takes its own launch) */
    unsigned long long overlaps, same;  /* the recorded call's overlapping pairs, its pairs at one address */
    unsigned long long generation;  /* records so far: a call whose reads ran Python code that recorded misses */
} Memo;

static PyObject *s_data_ptr, *s_shape, *s_stride, *s_dtype, *s_device, *s_device_index, *s_cuda_stream;
static PyObject *s_cai, *s_data, *s_shape_key, *s_typestr, *s_strides;

static int plain_grid(PyObject *grid) {
    if (PyLong_CheckExact(grid)) return 1;
    if (!PyTuple_CheckExact(grid)) return 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(grid); i++)
        if (!PyLong_CheckExact(PyTuple_GET_ITEM(grid, i))) return 0;
    return 1;
}

/* an array's __cuda_array_interface__ facts as cutile_bound's key reads them: out[0] the data pointer,
   out[1] the shape (a tuple), out[2] the strides (None or a tuple), out[3] the typestr, or (typestr,
   "read-only") where data[1] is true (new references);
   0, or -1 (an exception set, or none where the key would be None: no interface, not a dict, an entry
   missing or of the wrong kind) */
static int cai_facts(PyObject *a, PyObject *out[4]) {
    out[0] = out[1] = out[2] = out[3] = NULL;
    PyObject *c = PyObject_GetAttr(a, s_cai);
    if (c == NULL) return -1;
    int rc = -1;
    if (PyDict_CheckExact(c)) {
        PyObject *data = PyDict_GetItemWithError(c, s_data);
        PyObject *shape = data ? PyDict_GetItemWithError(c, s_shape_key) : NULL;
        PyObject *typestr = shape ? PyDict_GetItemWithError(c, s_typestr) : NULL;
        if (typestr != NULL) {
            PyObject *strides = PyDict_GetItemWithError(c, s_strides);
            if (strides != NULL || !PyErr_Occurred()) {
                out[0] = PySequence_GetItem(data, 0);
                out[1] = out[0] == NULL ? NULL : PyTuple_CheckExact(shape) ? (Py_INCREF(shape), shape)
                                                                           : PySequence_Tuple(shape);
                if (out[1] != NULL) {
                    if (strides == NULL || strides == Py_None) out[2] = Py_NewRef(Py_None);
                    else out[2] = PyTuple_CheckExact(strides) ? Py_NewRef(strides) : PySequence_Tuple(strides);
                }
                if (out[2] != NULL) {  /* a read-only array: (typestr, "read-only"), as the key reads it */
                    PyObject *flag = PySequence_GetItem(data, 1);
                    int ro = flag == NULL ? -1 : PyObject_IsTrue(flag);
                    Py_XDECREF(flag);
                    if (ro == 0) out[3] = Py_NewRef(typestr);
                    else if (ro == 1) out[3] = Py_BuildValue("(Os)", typestr, "read-only");
                    if (out[3] != NULL) rc = 0;
                }
            }
        }
    }
    Py_DECREF(c);
    if (rc < 0) {
        for (int i = 0; i < 4; i++) Py_CLEAR(out[i]);
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_LookupError, "no array interface the key reads");
    }
    return rc;
}

/* the facts of one argument of kind k appended to list (0), or -1 with an exception set */
static int read_facts(char k, PyObject *a, PyObject *list) {
    if (k == 'c') {
        PyObject *v[4];
        if (cai_facts(a, v) < 0) return -1;
        int rc = 0;
        for (int i = 0; i < 4; i++) {
            if (rc == 0 && PyList_Append(list, v[i]) < 0) rc = -1;
            Py_DECREF(v[i]);
        }
        return rc;
    }
    if (k == 'T') {
        PyObject *v[5];
        v[0] = PyObject_VectorcallMethod(s_data_ptr, &a, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
        v[1] = v[0] ? PyObject_GetAttr(a, s_shape) : NULL;
        v[2] = v[1] ? PyObject_VectorcallMethod(s_stride, &a, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL) : NULL;
        v[3] = v[2] ? PyObject_GetAttr(a, s_dtype) : NULL;
        v[4] = v[3] ? PyObject_GetAttr(a, s_device) : NULL;
        int rc = v[4] ? 0 : -1;
        for (int i = 0; i < 5; i++) {
            if (rc == 0 && PyList_Append(list, v[i]) < 0) rc = -1;
            Py_XDECREF(v[i]);
        }
        return rc;
    }
    return PyList_Append(list, a);
}

/* 1: argument a of kind k has the facts at facts[*at...] (advanced past them); 0: not; -1: an exception */
static int same_facts(char k, PyObject *a, PyObject *facts, Py_ssize_t *at) {
    if (k == 'T' || k == 't') {  /* 't': the facts after the pointer (read and compared by the caller) */
        PyObject *v;
        int eq;
        if (k == 'T') {
            v = PyObject_VectorcallMethod(s_data_ptr, &a, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
            if (v == NULL) return -1;
            eq = PyObject_RichCompareBool(v, PyTuple_GET_ITEM(facts, (*at)++), Py_EQ);
            Py_DECREF(v);
            if (eq != 1) return eq;
        }
        v = PyObject_GetAttr(a, s_shape);
        if (v == NULL) return -1;
        eq = PyObject_RichCompareBool(v, PyTuple_GET_ITEM(facts, (*at)++), Py_EQ);
        Py_DECREF(v);
        if (eq != 1) return eq;
        v = PyObject_VectorcallMethod(s_stride, &a, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
        if (v == NULL) return -1;
        eq = PyObject_RichCompareBool(v, PyTuple_GET_ITEM(facts, (*at)++), Py_EQ);
        Py_DECREF(v);
        if (eq != 1) return eq;
        v = PyObject_GetAttr(a, s_dtype);
        if (v == NULL) return -1;
        eq = PyObject_RichCompareBool(v, PyTuple_GET_ITEM(facts, (*at)++), Py_EQ);
        Py_DECREF(v);
        if (eq != 1) return eq;
        v = PyObject_GetAttr(a, s_device);
        if (v == NULL) return -1;
        eq = PyObject_RichCompareBool(v, PyTuple_GET_ITEM(facts, (*at)++), Py_EQ);
        Py_DECREF(v);
        return eq;
    }
    PyObject *f = PyTuple_GET_ITEM(facts, (*at)++);
    if (k == 'f') {  /* the same bits (a float zero keeps its sign; a NaN equals itself) */
        double x = PyFloat_AS_DOUBLE(a), y = PyFloat_AS_DOUBLE(f);
        return memcmp(&x, &y, sizeof(double)) == 0;
    }
    return PyObject_RichCompareBool(a, f, Py_EQ);
}

/* the handle of a stream of the recorded stream object's class (a torch stream): its cuda_stream when
   its device_index is 0 (a new reference), else NULL (no exception set) */
static PyObject *torch_stream_handle(PyObject *stream) {
    PyObject *index = PyObject_GetAttr(stream, s_device_index);
    int ok = index != NULL && PyLong_CheckExact(index) && PyLong_AsLong(index) == 0;
    Py_XDECREF(index);
    PyObject *handle = ok ? PyObject_GetAttr(stream, s_cuda_stream) : NULL;
    if (handle != NULL && !PyLong_CheckExact(handle)) Py_CLEAR(handle);
    if (handle == NULL) PyErr_Clear();
    return handle;
}

/* the pairs (i < j) of arrays at ptrs whose byte ranges [p + lo, p + hi) overlap, as bits */
static unsigned long long overlap_bits(Py_ssize_t n, const long long *ptrs, const long long *lo, const long long *hi) {
    unsigned long long bits = 0;
    int bit = 0;
    for (Py_ssize_t i = 0; i < n; i++)
        for (Py_ssize_t j = i + 1; j < n; j++, bit++)
            if (ptrs[i] + lo[i] < ptrs[j] + hi[j] && ptrs[j] + lo[j] < ptrs[i] + hi[i]) bits |= 1ULL << bit;
    return bits;
}

/* the pairs (i < j) of arrays at the same address, as bits (cutile_bound's ("same", i, j) pairs) */
static unsigned long long same_bits(Py_ssize_t n, const long long *ptrs) {
    unsigned long long bits = 0;
    int bit = 0;
    for (Py_ssize_t i = 0; i < n; i++)
        for (Py_ssize_t j = i + 1; j < n; j++, bit++)
            if (ptrs[i] == ptrs[j]) bits |= 1ULL << bit;
    return bits;
}

static long long alignment(long long p) {  /* the largest power of two (at most 16) dividing p; 16 for 0 */
    return (p & 15) == 0 ? 16 : (p & -p);
}

static PyObject *memo_call(PyObject *op, PyObject *const *argv, size_t nargsf, PyObject *kwnames) {
    Memo *self = (Memo *)op;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    PyObject *facts = self->facts, *handle = NULL, *pv[64];
    long long qs[CL_MEMO_PTRS];
    Py_ssize_t np = 0;
    int moved = 0, movable = self->go != NULL;
    if (facts == NULL || nargs != 6 || kwnames != NULL || self->miss == NULL) goto miss;
    PyObject *stream = argv[0], *grid = argv[1], *args = argv[2];
    Py_ssize_t n = PyBytes_GET_SIZE(self->kinds);
    if (!PyTuple_CheckExact(args) || PyTuple_GET_SIZE(args) != n || n > 64 || !plain_grid(grid)) goto miss;
    if (PyLong_CheckExact(stream)) {
        handle = stream;
        Py_INCREF(handle);
    } else if (stream == self->stream && self->stream != NULL && self->stream != Py_None) {
        handle = self->handle;
        Py_INCREF(handle);
    } else if (PySet_Contains(self->stream_types, (PyObject *)Py_TYPE(stream)) == 1) {
        handle = torch_stream_handle(stream);
        if (handle == NULL) goto miss;
        Py_INCREF(stream);  /* the next call on this stream object: its handle without reading it */
        Py_XSETREF(self->stream, stream);
        Py_INCREF(handle);
        Py_XSETREF(self->handle, handle);
    } else {
        PyErr_Clear();
        goto miss;
    }
    Py_INCREF(facts);  /* a read below may run Python code that records another call */
    unsigned long long generation = self->generation;
    int eq = 1;
    for (int i = 0; i < 4 && eq == 1; i++)
        eq = PyObject_RichCompareBool(argv[i == 0 ? 1 : i + 2], PyTuple_GET_ITEM(facts, i), Py_EQ);
    const char *kinds = PyBytes_AS_STRING(self->kinds);
    Py_ssize_t at = 4;
    for (Py_ssize_t i = 0; i < n && eq == 1; i++) {
        PyObject *a = PyTuple_GET_ITEM(args, i);
        if ((PyObject *)Py_TYPE(a) != PyTuple_GET_ITEM(self->types, i)) {
            eq = 0;
        } else if (kinds[i] == 'T' || kinds[i] == 'c') {
            /* the pointer: equal, or (a recorded layout with a pointer launcher) another int to re-point to */
            PyObject *v, *cv[4];
            if (kinds[i] == 'T') {
                v = PyObject_VectorcallMethod(s_data_ptr, &a, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
            } else {
                v = cai_facts(a, cv) < 0 ? NULL : cv[0];
            }
            if (v == NULL) { eq = -1; break; }
            pv[np++] = v;
            eq = PyObject_RichCompareBool(v, PyTuple_GET_ITEM(facts, at++), Py_EQ);
            if (eq == 0 && movable) {
                moved = 1;
                eq = 1;
            }
            if (kinds[i] == 'T') {
                if (eq == 1) eq = same_facts('t', a, facts, &at);  /* the tensor's other facts */
            } else {
                for (int j = 1; j < 4; j++) {  /* the array interface's other facts */
                    if (eq == 1) eq = PyObject_RichCompareBool(cv[j], PyTuple_GET_ITEM(facts, at++), Py_EQ);
                    Py_DECREF(cv[j]);
                }
            }
        } else {
            eq = same_facts(kinds[i], a, facts, &at);
        }
    }
    Py_DECREF(facts);
    if (eq < 0) PyErr_Clear();  /* the Python path reads again and raises what it raises */
    if (eq == 1 && self->generation != generation) eq = 0;  /* another call recorded meanwhile (another thread) */
    if (eq == 1 && !moved && self->launch == NULL) {  /* recorded launched through its layout: re-pointed too */
        if (movable) moved = 1;
        else eq = 0;
    }
    if (eq == 1 && moved) {  /* the same alignments (no null pointer) and the same overlaps: re-pointed */
        if (np != self->n_ptrs || np > CL_MEMO_PTRS) eq = 0;
        for (Py_ssize_t i = 0; i < np && eq == 1; i++) qs[i] = as_pointer(pv[i]);
        for (Py_ssize_t i = 0; i < np && eq == 1; i++) {
            long long a = alignment(self->ptrs[i]);
            if (qs[i] <= 0 || alignment(qs[i]) != a) eq = 0;
        }
        if (eq == 1 && (overlap_bits(np, qs, self->lo, self->hi) != self->overlaps
                        || same_bits(np, qs) != self->same)) eq = 0;
        if (eq == 1) {  /* the layout's bound call: its own bound launch (the Python launcher finds it) */
            int same = 1;
            for (Py_ssize_t i = 0; i < np && same; i++) same = qs[i] == self->bound[i];
            if (same) eq = 0;
        }
    }
    if (eq != 1) goto miss_ptrs;
    PyObject *r;
    if (moved) {
        PyObject *pointers = PyTuple_New(np);
        if (pointers == NULL) goto fail;
        for (Py_ssize_t i = 0; i < np; i++) PyTuple_SET_ITEM(pointers, i, pv[i]);  /* the references move */
        np = 0;
        PyObject *go = self->go;
        Py_INCREF(go);
        PyObject *call[2] = {handle, pointers};
        r = PyObject_Vectorcall(go, call, 2, NULL);
        Py_DECREF(go);
        Py_DECREF(pointers);
    } else {
        PyObject *launch = self->launch;
        Py_INCREF(launch);
        r = PyObject_CallOneArg(launch, handle);
        Py_DECREF(launch);
    }
    for (Py_ssize_t i = 0; i < np; i++) Py_DECREF(pv[i]);
    Py_DECREF(handle);
    if (r == NULL) return NULL;
    Py_DECREF(r);
    Py_RETURN_TRUE;
fail:
    for (Py_ssize_t i = 0; i < np; i++) Py_DECREF(pv[i]);
    Py_XDECREF(handle);
    return NULL;
miss_ptrs:
    for (Py_ssize_t i = 0; i < np; i++) Py_DECREF(pv[i]);
    np = 0;
miss:
    Py_XDECREF(handle);
    if (self->miss == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Memo: no hot launcher attached");
        return NULL;
    }
    return PyObject_Vectorcall(self->miss, argv, nargsf, kwnames);
}

static PyObject *memo_record(PyObject *op, PyObject *const *argv, Py_ssize_t nargs) {
    Memo *self = (Memo *)op;
    if (nargs != 10) {
        PyErr_SetString(PyExc_TypeError, "record(stream, grid, args, arch, schedule, tiles, launch, stream_object, "
                                         "handle, layout)");
        return NULL;
    }
    PyObject *args = argv[2];
    Py_ssize_t n = PyBytes_GET_SIZE(self->kinds);
    self->generation++;
    Py_CLEAR(self->facts);
    Py_CLEAR(self->go);
    if (!PyTuple_CheckExact(args) || PyTuple_GET_SIZE(args) != n) Py_RETURN_NONE;
    PyObject *list = PyList_New(0);
    if (list == NULL) return NULL;
    int rc = PyList_Append(list, argv[1]) | PyList_Append(list, argv[3]) | PyList_Append(list, argv[4])
             | PyList_Append(list, argv[5]);
    const char *kinds = PyBytes_AS_STRING(self->kinds);
    Py_ssize_t np = 0;
    int pointers_ok = 1;
    for (Py_ssize_t i = 0; i < n && rc == 0; i++) {
        PyObject *a = PyTuple_GET_ITEM(args, i);
        if ((PyObject *)Py_TYPE(a) != PyTuple_GET_ITEM(self->types, i)) {
            rc = 1;
        } else {
            Py_ssize_t before = PyList_GET_SIZE(list);
            rc = read_facts(kinds[i], a, list);
            if (rc == 0 && (kinds[i] == 'T' || kinds[i] == 'c')) {  /* the pointer just read */
                long long q = as_pointer(PyList_GET_ITEM(list, before));
                if (q <= 0 || np >= CL_MEMO_PTRS) pointers_ok = 0;
                else self->ptrs[np] = q;
                np++;
            }
        }
    }
    if (rc != 0) {  /* an argument of another class, or a read that raised: nothing recorded */
        Py_DECREF(list);
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    PyObject *facts = PyList_AsTuple(list);
    Py_DECREF(list);
    if (facts == NULL) return NULL;
    Py_CLEAR(self->launch);
    if (argv[6] != Py_None) {  /* None: launched through the layout's pointer launcher (below) */
        Py_INCREF(argv[6]);
        self->launch = argv[6];
    }
    if (argv[7] != Py_None) {  /* a torch stream object and its handle */
        Py_INCREF(argv[7]); Py_XSETREF(self->stream, argv[7]);
        Py_INCREF(argv[8]); Py_XSETREF(self->handle, argv[8]);
    }
    self->facts = facts;
    /* layout: cutile_bound's _layouts entry of this call, (repoint, extents, overlaps, go, ...), or None */
    PyObject *layout = argv[9];
    if (pointers_ok && np > 0 && PyTuple_Check(layout) && PyTuple_GET_SIZE(layout) >= 4
            && PyTuple_GET_ITEM(layout, 3) != Py_None && PyTuple_Check(PyTuple_GET_ITEM(layout, 1))
            && PyTuple_GET_SIZE(PyTuple_GET_ITEM(layout, 1)) == np) {
        PyObject *extents = PyTuple_GET_ITEM(layout, 1);
        int ok = 1;
        for (Py_ssize_t i = 0; i < np && ok; i++) {
            PyObject *e = PyTuple_GET_ITEM(extents, i);
            if (!PyTuple_Check(e) || PyTuple_GET_SIZE(e) != 2) { ok = 0; break; }
            self->lo[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(e, 0));
            self->hi[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(e, 1));
            if (PyErr_Occurred()) { PyErr_Clear(); ok = 0; }
        }
        PyObject *bound = PyTuple_GET_SIZE(layout) >= 5 ? PyTuple_GET_ITEM(layout, 4) : NULL;
        for (Py_ssize_t i = 0; i < np && ok; i++) {
            self->bound[i] = 0;
            if (bound != NULL && PyTuple_Check(bound) && PyTuple_GET_SIZE(bound) == np)
                self->bound[i] = as_pointer(PyTuple_GET_ITEM(bound, i));
        }
        if (ok) {
            self->n_ptrs = np;
            self->overlaps = overlap_bits(np, self->ptrs, self->lo, self->hi);
            self->same = same_bits(np, self->ptrs);
            self->go = PyTuple_GET_ITEM(layout, 3);
            Py_INCREF(self->go);
        }
    }
    Py_RETURN_NONE;
}

static PyObject *memo_attach(PyObject *op, PyObject *miss) {
    Memo *self = (Memo *)op;
    Py_INCREF(miss);
    Py_XSETREF(self->miss, miss);
    Py_RETURN_NONE;
}

static PyObject *memo_forget(PyObject *op, PyObject *unused) {
    (void)unused;
    ((Memo *)op)->generation++;
    Py_CLEAR(((Memo *)op)->facts);
    Py_CLEAR(((Memo *)op)->go);
    Py_RETURN_NONE;
}

static PyObject *memo_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
    PyObject *types, *kinds, *stream_types;
    if ((kw != NULL && PyDict_GET_SIZE(kw) != 0) || !PyArg_ParseTuple(args, "O!O!O!:Memo", &PyTuple_Type, &types,
                                                                      &PyBytes_Type, &kinds, &PySet_Type,
                                                                      &stream_types))
        return NULL;
    if (PyTuple_GET_SIZE(types) != PyBytes_GET_SIZE(kinds)) {
        PyErr_SetString(PyExc_ValueError, "Memo: one kind per class");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < PyBytes_GET_SIZE(kinds); i++) {
        char k = PyBytes_AS_STRING(kinds)[i];
        PyObject *t = PyTuple_GET_ITEM(types, i);
        if (!PyType_Check(t) || (k != 'T' && k != 'c' && k != 'f' && k != 'i')
                || (k == 'f' && t != (PyObject *)&PyFloat_Type)) {
            PyErr_Format(PyExc_ValueError, "Memo: argument %zd: kind %c of class %R", i, k, t);
            return NULL;
        }
    }
    Memo *self = (Memo *)type->tp_alloc(type, 0);
    if (self == NULL) return NULL;
    self->vectorcall = memo_call;
    Py_INCREF(types); self->types = types;
    Py_INCREF(kinds); self->kinds = kinds;
    Py_INCREF(stream_types); self->stream_types = stream_types;
    return (PyObject *)self;
}

static int memo_traverse(Memo *self, visitproc visit, void *arg) {
    Py_VISIT(self->dict); Py_VISIT(self->miss); Py_VISIT(self->types); Py_VISIT(self->kinds);
    Py_VISIT(self->stream_types);
    Py_VISIT(self->facts); Py_VISIT(self->launch); Py_VISIT(self->stream); Py_VISIT(self->handle);
    Py_VISIT(self->go);
    return 0;
}

static int memo_clear(Memo *self) {
    Py_CLEAR(self->dict); Py_CLEAR(self->miss); Py_CLEAR(self->types); Py_CLEAR(self->kinds);
    Py_CLEAR(self->stream_types);
    Py_CLEAR(self->facts); Py_CLEAR(self->launch); Py_CLEAR(self->stream); Py_CLEAR(self->handle);
    Py_CLEAR(self->go);
    return 0;
}

static void memo_dealloc(Memo *self) {
    PyObject_GC_UnTrack(self);
    memo_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef memo_methods[] = {
    {"record", (PyCFunction)(void (*)(void))memo_record, METH_FASTCALL,
     "record(stream, grid, args, arch, schedule, tiles, launch, stream_object, handle, layout)"},
    {"attach", memo_attach, METH_O, "attach(miss): the hot launcher a call that is no repeat goes to"},
    {"forget", memo_forget, METH_NOARGS, "forget the recorded call"},
    {NULL}
};

static PyTypeObject MemoType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "tileorch_c_launch.Memo",
    .tp_basicsize = sizeof(Memo),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "One kernel's last launched call: memo(stream, grid, args, arch, schedule, tiles).",
    .tp_new = memo_new,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(Memo, vectorcall),
    .tp_dictoffset = offsetof(Memo, dict),
    .tp_traverse = (traverseproc)memo_traverse,
    .tp_clear = (inquiry)memo_clear,
    .tp_dealloc = (destructor)memo_dealloc,
    .tp_getset = launcher_getset,
    .tp_methods = memo_methods,
};

/* ------------------------------------------------------------------ Front: tileorch.cutile.launch's first step

   Front(python, last_hot, native_on, defaults): front(stream, grid, kernel, args) -- four arguments by
   position -- when native_on[0] is false and last_hot[0] is (kernel, a Memo): that Memo called with
   (stream, grid, args, *defaults) (the Python function's arch, schedule and tiles defaults); its True
   is the call's None.  Anything else (keywords, more or fewer arguments, the native route on, another
   kernel, a hot launcher that is no Memo, the Memo's answer not True) is python(...)'s, the Python launch
   function's, which reads the call again; an exception the Memo raises (a failed launch) is raised. */

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *dict;
    PyObject *python, *last_hot, *native_on, *defaults;
} Front;

static PyObject *front_call(PyObject *op, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    Front *self = (Front *)op;
    if (PyVectorcall_NARGS(nargsf) == 4 && (kwnames == NULL || PyTuple_GET_SIZE(kwnames) == 0)
            && PyList_GET_SIZE(self->native_on) > 0 && PyList_GET_SIZE(self->last_hot) > 0) {
        int native = PyObject_IsTrue(PyList_GET_ITEM(self->native_on, 0));
        if (native < 0) return NULL;
        PyObject *last = PyList_GET_ITEM(self->last_hot, 0);
        if (!native && PyTuple_CheckExact(last) && PyTuple_GET_SIZE(last) == 2 && PyTuple_GET_ITEM(last, 0) == args[2]
                && Py_TYPE(PyTuple_GET_ITEM(last, 1)) == &MemoType) {
            PyObject *memo = PyTuple_GET_ITEM(last, 1);
            Py_INCREF(memo);  /* (another thread may replace last_hot[0] while it runs) */
            PyObject *call[6] = {args[0], args[1], args[3], PyTuple_GET_ITEM(self->defaults, 0),
                                 PyTuple_GET_ITEM(self->defaults, 1), PyTuple_GET_ITEM(self->defaults, 2)};
            PyObject *r = memo_call(memo, call, 6, NULL);
            Py_DECREF(memo);
            if (r == NULL) return NULL;
            int launched = r == Py_True;
            Py_DECREF(r);
            if (launched) Py_RETURN_NONE;
        }
    }
    return PyObject_Vectorcall(self->python, args, nargsf, kwnames);
}

static PyObject *front_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
    PyObject *python, *last_hot, *native_on, *defaults;
    if ((kw != NULL && PyDict_GET_SIZE(kw) != 0)
            || !PyArg_ParseTuple(args, "OO!O!O!:Front", &python, &PyList_Type, &last_hot, &PyList_Type, &native_on,
                                 &PyTuple_Type, &defaults))
        return NULL;
    if (PyTuple_GET_SIZE(defaults) != 3 || !PyCallable_Check(python)) {
        PyErr_SetString(PyExc_ValueError, "Front(python, last_hot, native_on, (arch, schedule, tiles))");
        return NULL;
    }
    Front *self = (Front *)type->tp_alloc(type, 0);
    if (self == NULL) return NULL;
    self->vectorcall = front_call;
    self->python = Py_NewRef(python);
    self->last_hot = Py_NewRef(last_hot);
    self->native_on = Py_NewRef(native_on);
    self->defaults = Py_NewRef(defaults);
    return (PyObject *)self;
}

static int front_traverse(Front *self, visitproc visit, void *arg) {
    Py_VISIT(self->dict); Py_VISIT(self->python); Py_VISIT(self->last_hot); Py_VISIT(self->native_on);
    Py_VISIT(self->defaults);
    return 0;
}

static int front_clear(Front *self) {
    Py_CLEAR(self->dict); Py_CLEAR(self->python); Py_CLEAR(self->last_hot); Py_CLEAR(self->native_on);
    Py_CLEAR(self->defaults);
    return 0;
}

static void front_dealloc(Front *self) {
    PyObject_GC_UnTrack(self);
    front_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *front_get(PyObject *self, PyObject *obj, PyObject *type) {  /* a function's binding: none */
    (void)obj; (void)type;
    return Py_NewRef(self);
}

static PyTypeObject FrontType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "tileorch_c_launch.Front",
    .tp_basicsize = sizeof(Front),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "A launch function's repeated calls checked in C first: front(stream, grid, kernel, args).",
    .tp_new = front_new,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(Front, vectorcall),
    .tp_dictoffset = offsetof(Front, dict),
    .tp_traverse = (traverseproc)front_traverse,
    .tp_clear = (inquiry)front_clear,
    .tp_dealloc = (destructor)front_dealloc,
    .tp_getset = launcher_getset,
    .tp_descr_get = front_get,
};

static PyObject *config_size(PyObject *m, PyObject *unused) {
    (void)m; (void)unused;
    return Py_BuildValue("nnnn", (Py_ssize_t)sizeof(cl_config), (Py_ssize_t)offsetof(cl_config, stream),
                         (Py_ssize_t)offsetof(cl_config, attrs), (Py_ssize_t)sizeof(cl_attribute));
}

static PyMethodDef methods[] = {
    {"layout", config_size, METH_NOARGS,
     "(sizeof CUlaunchConfig, offsetof hStream, offsetof attrs, sizeof CUlaunchAttribute) as compiled"},
    {NULL}
};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, CL_MODULE_NAME, NULL, -1, methods};

PyMODINIT_FUNC CL_MODULE_INIT(void) {
    s_poisoned_by = PyUnicode_InternFromString("poisoned_by");
    s_require_healthy = PyUnicode_InternFromString("require_healthy");
    s_data_ptr = PyUnicode_InternFromString("data_ptr");
    s_shape = PyUnicode_InternFromString("shape");
    s_stride = PyUnicode_InternFromString("stride");
    s_dtype = PyUnicode_InternFromString("dtype");
    s_device = PyUnicode_InternFromString("device");
    s_device_index = PyUnicode_InternFromString("device_index");
    s_cai = PyUnicode_InternFromString("__cuda_array_interface__");
    s_data = PyUnicode_InternFromString("data");
    s_shape_key = PyUnicode_InternFromString("shape");
    s_typestr = PyUnicode_InternFromString("typestr");
    s_strides = PyUnicode_InternFromString("strides");
    if (s_cai == NULL || s_data == NULL || s_shape_key == NULL || s_typestr == NULL || s_strides == NULL) return NULL;
    s_cuda_stream = PyUnicode_InternFromString("cuda_stream");
    if (s_poisoned_by == NULL || s_require_healthy == NULL || s_data_ptr == NULL || s_shape == NULL
            || s_stride == NULL || s_dtype == NULL || s_device == NULL || s_device_index == NULL || s_cuda_stream == NULL || PyType_Ready(&LauncherType) < 0
            || PyType_Ready(&MemoType) < 0 || PyType_Ready(&FrontType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL) return NULL;
    Py_INCREF(&LauncherType);
    Py_INCREF(&MemoType);
    Py_INCREF(&FrontType);
    if (PyModule_AddObject(m, "Launcher", (PyObject *)&LauncherType) < 0
            || PyModule_AddObject(m, "Memo", (PyObject *)&MemoType) < 0
            || PyModule_AddObject(m, "Front", (PyObject *)&FrontType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
"""

_OWNER = os.getpid()  # the process whose builds _stop_builds stops (a forked child inherits the lists, not the builds)
_compilers: list[subprocess.Popen] = []  # the C compiler processes running now (killed at exit)
_temporaries: set[str] = set()  # files a running build writes (removed at exit)


def digest() -> str:
    """The digest of :data:`SOURCE` (the launcher module's name holds it: :data:`tileorch.runtime.c_launch.DIGEST`,
    kept equal by a test, so that a process loading the built file needs neither this module nor hashlib)."""
    import hashlib

    return hashlib.sha256(SOURCE.encode()).hexdigest()[:16]


def compiler() -> list[str]:
    """The C compiler command: ``$CC``; else the one Python was built with where it is on the
    PATH, else ``cc``, else ``gcc``."""
    import shutil

    if os.environ.get("CC"):
        return shlex.split(os.environ["CC"]) or ["cc"]
    for text in (sysconfig.get_config_var("CC") or "", "cc", "gcc"):
        command = shlex.split(text)
        if command and shutil.which(command[0]):
            return command
    return ["cc"]


def build(places: list[str], name: str, suffix: str) -> tuple[str | None, str]:
    """(the path of the built extension ``name + suffix`` in the first of ``places`` it could be
    written to, '') or (None, why not); a file there already is taken as built.  Blocks for the
    compiler (at most 120 s)."""
    include = sysconfig.get_paths().get("include") or ""
    if not os.path.isfile(os.path.join(include, "Python.h")):
        return None, f"no Python.h in {include!r} (the Python development headers are not installed)"
    command = compiler()
    why = "no directory to build in"
    from tileorch.runtime.c_launch_trust import trusted, trusted_folder

    for where in places:
        path = os.path.join(where, name + suffix)
        if os.path.isfile(path):
            if trusted(path):
                return path, ""
            why = f"{path} is not this user's own (owned or writable by another user): not loaded"
            continue
        try:
            os.makedirs(where, mode=0o700, exist_ok=True)
            if not trusted_folder(where):
                why = f"{where} is not this user's own folder (owned or writable by another user)"
                continue
            fd, tmp_src = tempfile.mkstemp(suffix=".c", prefix=name, dir=where)
        except OSError as exc:
            why = f"cannot write into {where} ({exc})"
            continue
        tmp_out = tmp_src[:-2] + suffix
        _temporaries.update((tmp_src, tmp_out))
        try:
            with os.fdopen(fd, "w") as f:
                f.write(SOURCE)
            argv = [*command, "-O2", "-shared", "-fPIC", f"-I{include}", f"-DCL_MODULE_NAME=\"{name}\"",
                    f"-DCL_MODULE_INIT=PyInit_{name}", "-o", tmp_out, tmp_src]
            try:
                proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            except (OSError, subprocess.SubprocessError) as exc:
                return None, f"the C compiler {command[0]!r} could not run ({type(exc).__name__}: {exc})"
            _compilers.append(proc)
            try:
                output, _ = proc.communicate(timeout=120)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.communicate()
                return None, f"the C compiler {command[0]!r} did not finish in 120 s"
            finally:
                _compilers.remove(proc)
            if proc.returncode != 0:
                first = " | ".join((output or "").strip().splitlines()[:3])
                return None, f"the C launcher did not build ({shlex.join(argv[:1])} exit {proc.returncode}: {first})"
            os.replace(tmp_out, path)
            return path, ""
        finally:
            for p in (tmp_src, tmp_out):
                _temporaries.discard(p)
                _remove(p)
    return None, why


def _remove(path: str) -> None:
    """Delete a temporary file of a build if it is there (best effort: it may never have been written)."""
    with contextlib.suppress(OSError):
        os.unlink(path)


@atexit.register
def _stop_builds() -> None:
    if os.getpid() != _OWNER:  # a forked child exiting: the builds and temporary files are its parent's
        return
    for proc in list(_compilers):
        with contextlib.suppress(OSError):  # (it may have ended meanwhile)
            proc.kill()
    for p in list(_temporaries):
        _remove(p)


__all__ = ["SOURCE", "build", "compiler", "digest"]
