/* SPDX-License-Identifier: MIT */
/*
 * _reis.c - the Python module over libreis (python/README.md): a CPython
 * extension that calls the public C API only (<libreis.h>, and
 * <libreis_tools.h> for the host tools), takes its inputs through numpy's
 * array interface (any buffer-protocol object or sequence, converted only
 * when its type or layout differs) and returns numpy arrays made in C.
 *
 *   Drive       one handle (reis_open / reis_open_inproc / discovery):
 *               databases, search, RecFlash tables and SLS, stats
 *   Image       a database image on the host (reis_db_build, from codes,
 *               or an image file) and its reference search
 *   Error       OSError with the NVMe status and the faulty field
 *               (reis_last_error_info())
 *
 * A Drive serializes its calls with a lock (a reis_dev belongs to one
 * thread at a time) and releases the GIL while libreis works, so several
 * Python threads may use one Drive, or one each.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <pythread.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libreis_tools.h>

static PyObject *ReisError;
static PyTypeObject SearchResultType, SLSResultType;

/* ---------------------------------------------------------------------- */
/* Small helpers                                                           */
/* ---------------------------------------------------------------------- */

/* d[key] = v, stealing v; -1 on failure (v NULL included). */
static int dset(PyObject *d, const char *key, PyObject *v)
{
	int r;

	if (!v)
		return -1;
	r = PyDict_SetItemString(d, key, v);
	Py_DECREF(v);
	return r;
}

#define DSET_U(d, s, f) dset(d, #f, PyLong_FromUnsignedLongLong((unsigned long long)(s)->f))
#define DSET_S(d, s, f) dset(d, #f, PyUnicode_FromString((s)->f))

/* A C array of unsigned counters as a Python list. */
static PyObject *u64_list(const uint64_t *v, size_t n)
{
	PyObject *l = PyList_New((Py_ssize_t)n);
	size_t i;

	if (!l)
		return NULL;
	for (i = 0; i < n; i++) {
		PyObject *x = PyLong_FromUnsignedLongLong(v[i]);

		if (!x) {
			Py_DECREF(l);
			return NULL;
		}
		PyList_SET_ITEM(l, (Py_ssize_t)i, x);
	}
	return l;
}

/*
 * as_array() - @o as a C-contiguous aligned array of @type with 1..2
 * dimensions (NULL for None when @optional). A new reference; the error
 * names @what.
 */
static PyArrayObject *as_array(PyObject *o, int type, int maxdim, const char *what,
			       int optional)
{
	PyArrayObject *a;

	if (o == Py_None || !o) {
		if (optional)
			return NULL;
		PyErr_Format(PyExc_TypeError, "%s is required", what);
		return NULL;
	}
	a = (PyArrayObject *)PyArray_FROMANY(o, type, 0, maxdim,
					      NPY_ARRAY_IN_ARRAY | NPY_ARRAY_FORCECAST);
	if (!a) {
		PyObject *t, *v, *tb;

		PyErr_Fetch(&t, &v, &tb);
		PyErr_Format(PyExc_TypeError, "%s: cannot be read as an array of %s (%S)", what,
			     type == NPY_FLOAT32 ? "float32" : type == NPY_UINT8 ? "uint8" :
			     type == NPY_INT8 ? "int8" : type == NPY_UINT32 ? "uint32" :
			     type == NPY_UINT64 ? "uint64" : "numbers", v ? v : Py_None);
		Py_XDECREF(t);
		Py_XDECREF(v);
		Py_XDECREF(tb);
		return NULL;
	}
	return a;
}

/*
 * rows_of() - @a as @rows x @cols: a 2-D array of @cols columns, or a 1-D
 * one of @cols elements (one row). -1 with ValueError otherwise.
 */
static int rows_of(PyArrayObject *a, npy_intp cols, const char *what, npy_intp *rows)
{
	int nd = PyArray_NDIM(a);

	if (nd == 2 && PyArray_DIM(a, 1) == cols) {
		*rows = PyArray_DIM(a, 0);
		return 0;
	}
	if (nd == 1 && PyArray_DIM(a, 0) == cols) {
		*rows = 1;
		return 0;
	}
	if (nd == 2)
		PyErr_Format(PyExc_ValueError, "%s must have %zd columns (shape (n, %zd)), not "
			     "shape (%zd, %zd)", what, (Py_ssize_t)cols, (Py_ssize_t)cols,
			     (Py_ssize_t)PyArray_DIM(a, 0), (Py_ssize_t)PyArray_DIM(a, 1));
	else
		PyErr_Format(PyExc_ValueError, "%s must have %zd columns (shape (n, %zd)), not "
			     "%d dimension(s)", what, (Py_ssize_t)cols, (Py_ssize_t)cols, nd);
	return -1;
}

/* A 1-D array of exactly @n elements (any n when @n < 0). */
static int len_of(PyArrayObject *a, npy_intp n, const char *what)
{
	if (PyArray_NDIM(a) == 1 && (n < 0 || PyArray_DIM(a, 0) == n))
		return 0;
	if (n < 0)
		PyErr_Format(PyExc_ValueError, "%s must be one-dimensional", what);
	else
		PyErr_Format(PyExc_ValueError, "%s must be one-dimensional with %zd elements",
			     what, (Py_ssize_t)n);
	return -1;
}

static PyObject *u64obj(uint64_t v)
{
	return PyLong_FromUnsignedLongLong(v);
}

static PyObject *new_array(int nd, npy_intp d0, npy_intp d1, int type)
{
	npy_intp dims[2] = { d0, d1 };

	return PyArray_SimpleNew(nd, dims, type);
}

/* Name lookups for the enum-like keyword arguments. */
struct name_val {
	const char *name;
	uint32_t val;
};

static int pick(PyObject *o, const struct name_val *t, const char *what, uint32_t dflt,
		uint32_t *out)
{
	const char *s;

	*out = dflt;
	if (!o || o == Py_None)
		return 0;
	if (PyLong_Check(o)) {
		*out = (uint32_t)PyLong_AsUnsignedLong(o);
		return PyErr_Occurred() ? -1 : 0;
	}
	s = PyUnicode_Check(o) ? PyUnicode_AsUTF8(o) : NULL;
	for (; s && t->name; t++)
		if (!strcmp(s, t->name)) {
			*out = t->val;
			return 0;
		}
	PyErr_Format(PyExc_ValueError, "%s: unknown value %R", what, o);
	return -1;
}

static const struct name_val kinds[] = {
	{ "flat", REIS_DB_BF }, { "bf", REIS_DB_BF }, { "ivf", REIS_DB_IVF }, { NULL, 0 } };
static const struct name_val metrics[] = {
	{ "ip", REIS_METRIC_IP }, { "l2", REIS_METRIC_L2 }, { NULL, 0 } };
static const struct name_val doc_modes[] = {
	{ "auto", REIS_DOC_NONE }, { "subpage", REIS_DOC_SUBPAGE }, { "page", REIS_DOC_PAGE },
	{ NULL, 0 } };
static const struct name_val rf_dtypes[] = {
	{ "fp32", REIS_RF_FP32 }, { "float32", REIS_RF_FP32 }, { "fp16", REIS_RF_FP16 },
	{ "float16", REIS_RF_FP16 }, { "int8", REIS_RF_INT8 }, { NULL, 0 } };
static const struct name_val rf_modes[] = {
	{ "recflash", REIS_RF_RECFLASH }, { "rmssd", REIS_RF_RMSSD }, { "recssd", REIS_RF_RECSSD },
	{ NULL, 0 } };
static const struct name_val rf_triggers[] = {
	{ "none", REIS_RF_TRIG_NONE }, { "threshold", REIS_RF_TRIG_THRESHOLD },
	{ "period", REIS_RF_TRIG_PERIOD }, { NULL, 0 } };

/* ---------------------------------------------------------------------- */
/* Errors                                                                  */
/* ---------------------------------------------------------------------- */

/*
 * raise_err() - raise reis.Error for a libreis failure: errno and the
 * message of @msg (reis_last_error() when @dev), and, when the drive
 * failed a command, its status, opcode and field. Returns NULL.
 */
static PyObject *raise_err(struct reis_dev *dev, int ret, const char *msg)
{
	struct reis_err_info e;
	PyObject *exc, *field = Py_None;
	const char *name;
	char where[64];
	int have = 0;

	if (dev) {
		if (!msg || !msg[0])
			msg = reis_last_error(dev);
		have = reis_last_error_info(dev, &e) == 1;
	}
	if (!msg || !msg[0])
		msg = reis_strerror(ret);
	exc = PyObject_CallFunction(ReisError, "is", -ret, msg);
	if (!exc)
		return NULL;
	if (!have) {
		memset(&e, 0, sizeof(e));
		e.cmd_byte = -1;
		e.data_byte = -1;
	}
	name = have ? reis_opcode_name(e.opcode) : NULL;
	if (e.cmd_byte >= 0)
		snprintf(where, sizeof(where), "command byte %d", e.cmd_byte);
	else if (e.data_byte >= 0)
		snprintf(where, sizeof(where), "data byte %d", e.data_byte);
	else
		where[0] = 0;
	if (where[0] && e.bit)
		snprintf(where + strlen(where), sizeof(where) - strlen(where), " bit %u", e.bit);
	if (where[0])
		field = PyUnicode_FromString(where);
	else
		Py_INCREF(field);
#define EATTR(k, v)                                                                         \
	do {                                                                                 \
		PyObject *_v = (v);                                                          \
		if (!_v || PyObject_SetAttrString(exc, k, _v) < 0) {                         \
			Py_XDECREF(_v);                                                      \
			goto fail;                                                           \
		}                                                                            \
		Py_DECREF(_v);                                                               \
	} while (0)
	EATTR("field", field);
	EATTR("status", PyLong_FromLong(e.status));
	EATTR("status_str", e.status ? PyUnicode_FromString(reis_status_str(e.status)) :
	      (Py_INCREF(Py_None), Py_None));
	EATTR("dnr", PyBool_FromLong(!!(e.status & REIS_STATUS_DNR)));
	EATTR("opcode", have ? PyLong_FromLong(e.opcode) : (Py_INCREF(Py_None), Py_None));
	EATTR("opcode_name", name ? PyUnicode_FromString(name) : (Py_INCREF(Py_None), Py_None));
	EATTR("reason", e.logged ? PyUnicode_FromString(e.reason) :
	      (Py_INCREF(Py_None), Py_None));
	EATTR("cmd_byte", e.cmd_byte >= 0 ? PyLong_FromLong(e.cmd_byte) :
	      (Py_INCREF(Py_None), Py_None));
	EATTR("data_byte", e.data_byte >= 0 ? PyLong_FromLong(e.data_byte) :
	      (Py_INCREF(Py_None), Py_None));
	EATTR("bit", PyLong_FromUnsignedLong(e.bit));
	EATTR("error_count", e.logged ? PyLong_FromUnsignedLongLong(e.error_count) :
	      (Py_INCREF(Py_None), Py_None));
#undef EATTR
	PyErr_SetObject(ReisError, exc);
	Py_DECREF(exc);
	return NULL;
fail:
	Py_DECREF(exc);
	return NULL;
}

/* ---------------------------------------------------------------------- */
/* The Drive type                                                          */
/* ---------------------------------------------------------------------- */

/* What the Drive knows about one of its databases (capsule in its cache). */
struct dbent {
	uint32_t kind, dim, flags, metric;
	int quant;		/* 0: not read yet, 1: @q valid, -1: the database has none */
	struct reis_quant q;
};

typedef struct {
	PyObject_HEAD
	struct reis_dev *dev;
	PyThread_type_lock lock;
	PyObject *dbs;		/* did -> capsule of struct dbent */
	PyObject *tables;	/* tid -> dim */
	PyObject *weakrefs;
} Drive;

static PyTypeObject DriveType;

/* Take the handle's lock; without the GIL only when another thread has it. */
static void dev_lock(Drive *d)
{
	if (!PyThread_acquire_lock(d->lock, NOWAIT_LOCK)) {
		Py_BEGIN_ALLOW_THREADS
		PyThread_acquire_lock(d->lock, WAIT_LOCK);
		Py_END_ALLOW_THREADS
	}
}

static void dev_unlock(Drive *d)
{
	PyThread_release_lock(d->lock);
}

static int dev_open(Drive *d)
{
	if (d->dev)
		return 0;
	PyErr_SetString(PyExc_ValueError, "the drive is closed");
	return -1;
}

/* Run @call (an expression setting ret) with the lock held and no GIL. */
#define DEV_CALL(d, call)                                                                  \
	do {                                                                               \
		dev_lock(d);                                                               \
		Py_BEGIN_ALLOW_THREADS                                                     \
		call;                                                                      \
		Py_END_ALLOW_THREADS                                                       \
	} while (0)

static void dbent_free(PyObject *cap)
{
	struct dbent *e = PyCapsule_GetPointer(cap, "reis.dbent");

	if (e) {
		reis_quant_free(&e->q);
		free(e);
	}
}

static int quant_copy(struct reis_quant *dst, const struct reis_quant *src)
{
	size_t b = (size_t)src->dim * sizeof(float);

	*dst = *src;
	dst->mean = malloc(b);
	dst->scale = malloc(b);
	if (!dst->mean || !dst->scale) {
		reis_quant_free(dst);
		return -ENOMEM;
	}
	memcpy(dst->mean, src->mean, b);
	memcpy(dst->scale, src->scale, b);
	return 0;
}

static void forget_db(Drive *d, uint32_t did)
{
	PyObject *k = PyLong_FromUnsignedLong(did);

	if (k) {
		if (PyDict_DelItem(d->dbs, k) < 0)
			PyErr_Clear();
		Py_DECREF(k);
	}
}

/*
 * db_entry() - the cached facts of database @did (DB_INFO the first time),
 * with its quantizer when @want_quant. Called with the lock held.
 */
static struct dbent *db_entry(Drive *d, uint32_t did, int want_quant)
{
	PyObject *k = PyLong_FromUnsignedLong(did), *cap;
	struct reis_db_info info;
	struct dbent *e;
	int ret;

	if (!k)
		return NULL;
	cap = PyDict_GetItemWithError(d->dbs, k);
	if (cap) {
		e = PyCapsule_GetPointer(cap, "reis.dbent");
	} else {
		if (PyErr_Occurred())
			goto fail;
		Py_BEGIN_ALLOW_THREADS
		ret = reis_db_info(d->dev, did, &info);
		Py_END_ALLOW_THREADS
		if (ret) {
			raise_err(d->dev, ret, NULL);
			goto fail;
		}
		e = calloc(1, sizeof(*e));
		if (!e) {
			PyErr_NoMemory();
			goto fail;
		}
		e->kind = info.kind;
		e->dim = info.dim;
		e->flags = info.flags;
		e->metric = info.metric;
		e->quant = info.meta_bytes ? 0 : -1;
		cap = PyCapsule_New(e, "reis.dbent", dbent_free);
		if (!cap) {
			free(e);
			goto fail;
		}
		ret = PyDict_SetItem(d->dbs, k, cap);
		Py_DECREF(cap);
		if (ret < 0)
			goto fail;
	}
	if (want_quant && e->quant == 0) {
		Py_BEGIN_ALLOW_THREADS
		ret = reis_db_quantizer(d->dev, did, &e->q);
		Py_END_ALLOW_THREADS
		if (ret == -ENODATA) {
			e->quant = -1;
		} else if (ret) {
			raise_err(d->dev, ret, NULL);
			goto fail;
		} else {
			e->quant = 1;
		}
	}
	Py_DECREF(k);
	return e;
fail:
	Py_DECREF(k);
	return NULL;
}

static void Drive_dealloc(Drive *d)
{
	if (d->weakrefs)
		PyObject_ClearWeakRefs((PyObject *)d);
	if (d->dev) {
		struct reis_dev *dev = d->dev;

		d->dev = NULL;
		Py_BEGIN_ALLOW_THREADS
		reis_close(dev);
		Py_END_ALLOW_THREADS
	}
	if (d->lock)
		PyThread_free_lock(d->lock);
	Py_XDECREF(d->dbs);
	Py_XDECREF(d->tables);
	Py_TYPE(d)->tp_free((PyObject *)d);
}

static PyObject *Drive_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
	Drive *d = (Drive *)type->tp_alloc(type, 0);

	(void)args;
	(void)kw;
	if (!d)
		return NULL;
	d->lock = PyThread_allocate_lock();
	d->dbs = PyDict_New();
	d->tables = PyDict_New();
	if (!d->lock || !d->dbs || !d->tables) {
		Py_DECREF(d);
		return PyErr_NoMemory();
	}
	return (PyObject *)d;
}

static const struct name_val timings[] = {
	{ "annotate", 0 }, { "delay", REIS_INPROC_DELAY }, { "vclock", REIS_INPROC_VCLOCK },
	{ NULL, 0 } };

static int Drive_init(Drive *d, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "path", "inproc", "backing", "preset", "params", "timing",
				  "qdepth", "workers", "max_xfer", "trace_dir", "ioctl", "force",
				  NULL };
	const char *path = NULL, *backing = NULL, *preset = NULL, *params = NULL, *trace = NULL;
	PyObject *timing = NULL;
	unsigned qdepth = 0, workers = 0, max_xfer = 0;
	int inproc = 0, ioctl_ = 0, force = 0, ret;
	struct reis_dev *dev = NULL;
	char errbuf[256] = "";

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|z$pzzzOIIIzpp", kwlist, &path, &inproc,
					 &backing, &preset, &params, &timing, &qdepth, &workers,
					 &max_xfer, &trace, &ioctl_, &force))
		return -1;
	if (d->dev) {
		PyErr_SetString(PyExc_RuntimeError, "Drive is already open");
		return -1;
	}
	if (inproc) {
		struct reis_inproc_opts o;
		uint32_t fl;

		if (path) {
			PyErr_SetString(PyExc_ValueError, "path and inproc=True exclude each other");
			return -1;
		}
		if (pick(timing, timings, "timing", 0, &fl))
			return -1;
		memset(&o, 0, sizeof(o));
		o.backing = backing;
		o.preset = preset;
		o.params = params;
		o.trace_dir = trace;
		o.max_xfer = max_xfer;
		o.qdepth = qdepth;
		o.workers = workers;
		o.flags = fl;
		o.errbuf = errbuf;
		o.errlen = sizeof(errbuf);
		Py_BEGIN_ALLOW_THREADS
		ret = reis_open_inproc(&o, &dev);
		Py_END_ALLOW_THREADS
	} else {
		uint32_t flags = (ioctl_ ? REIS_OPEN_IOCTL : 0) | (force ? REIS_OPEN_FORCE : 0);
		struct reis_disc disc;

		if (backing || preset || params || trace || workers || max_xfer ||
		    (timing && timing != Py_None)) {
			PyErr_SetString(PyExc_ValueError, "backing, preset, params, timing, "
					"trace_dir, workers and max_xfer need inproc=True");
			return -1;
		}
		if (!path) {
			Py_BEGIN_ALLOW_THREADS
			ret = reis_discover(&disc, 1, flags);
			Py_END_ALLOW_THREADS
			if (ret < 0) {
				raise_err(NULL, ret, "discovery failed");
				return -1;
			}
			if (ret == 0) {
				raise_err(NULL, -ENODEV, "no ISP drive found (reis.discover(all=True) "
					  "says why each NVMe namespace was rejected)");
				return -1;
			}
			path = disc.path;
		}
		Py_BEGIN_ALLOW_THREADS
		ret = reis_open_qd(path, flags, qdepth, &dev);
		Py_END_ALLOW_THREADS
		if (ret)
			snprintf(errbuf, sizeof(errbuf), "open %s: %s", path, reis_strerror(ret));
	}
	if (ret) {
		raise_err(NULL, ret, errbuf);
		return -1;
	}
	d->dev = dev;
	return 0;
}

static PyObject *Drive_close(Drive *d, PyObject *unused)
{
	struct reis_dev *dev;

	(void)unused;
	dev_lock(d);
	dev = d->dev;
	d->dev = NULL;
	PyDict_Clear(d->dbs);
	PyDict_Clear(d->tables);
	if (dev) {
		Py_BEGIN_ALLOW_THREADS
		reis_close(dev);
		Py_END_ALLOW_THREADS
	}
	dev_unlock(d);
	Py_RETURN_NONE;
}

static PyObject *Drive_enter(Drive *d, PyObject *unused)
{
	(void)unused;
	if (dev_open(d))
		return NULL;
	Py_INCREF(d);
	return (PyObject *)d;
}

static PyObject *Drive_exit(Drive *d, PyObject *args)
{
	(void)args;
	return Drive_close(d, NULL);
}

static PyObject *Drive_get_path(Drive *d, void *c)
{
	(void)c;
	if (dev_open(d))
		return NULL;
	return PyUnicode_FromString(reis_path(d->dev));
}

static PyObject *Drive_get_transport(Drive *d, void *c)
{
	(void)c;
	if (dev_open(d))
		return NULL;
	return PyUnicode_FromString(reis_transport(d->dev));
}

static PyObject *Drive_get_max_xfer(Drive *d, void *c)
{
	(void)c;
	if (dev_open(d))
		return NULL;
	return PyLong_FromUnsignedLong(reis_max_xfer(d->dev));
}

static PyObject *Drive_get_closed(Drive *d, void *c)
{
	(void)c;
	return PyBool_FromLong(!d->dev);
}

static PyObject *cpl_dict(const struct reis_cpl *c)
{
	PyObject *r = PyDict_New();

	if (!r)
		return NULL;
	if (DSET_U(r, c, time_ns) || DSET_U(r, c, energy_nj) || DSET_U(r, c, host_ns) ||
	    DSET_U(r, c, status) || dset(r, "err", PyLong_FromLong(c->err)) ||
	    DSET_U(r, c, result)) {
		Py_DECREF(r);
		return NULL;
	}
	return r;
}

static PyObject *Drive_last_cpl(Drive *d, PyObject *unused)
{
	PyObject *r;

	(void)unused;
	if (dev_open(d))
		return NULL;
	dev_lock(d);
	r = cpl_dict(reis_last_cpl(d->dev));
	dev_unlock(d);
	return r;
}

static PyObject *Drive_noop(Drive *d, PyObject *unused)
{
	PyObject *r;
	int ret;

	(void)unused;
	if (dev_open(d))
		return NULL;
	DEV_CALL(d, ret = reis_noop(d->dev));
	r = ret ? raise_err(d->dev, ret, NULL) : cpl_dict(reis_last_cpl(d->dev));
	dev_unlock(d);
	return r;
}

static PyObject *info_dict(const struct reis_info *in)
{
	PyObject *r = PyDict_New(), *caps = PyList_New(0), *parts = PyList_New(0);
	unsigned i;

	if (!r || !caps || !parts)
		goto fail;
	for (i = 0; i < 64; i++)
		if (in->caps & (UINT64_C(1) << i) && reis_cap_name(UINT64_C(1) << i)) {
			PyObject *s = PyUnicode_FromString(reis_cap_name(UINT64_C(1) << i));

			if (!s || PyList_Append(caps, s) < 0) {
				Py_XDECREF(s);
				goto fail;
			}
			Py_DECREF(s);
		}
	for (i = 0; i < in->nparts; i++) {
		PyObject *p = Py_BuildValue("{s:I,s:I,s:s,s:I}", "first_block",
					    in->parts[i].first_block, "nblocks", in->parts[i].nblocks,
					    "cell_mode", reis_cell_mode_name(in->parts[i].cell_mode),
					    "pages_per_block", in->parts[i].pages_per_block);

		if (!p || PyList_Append(parts, p) < 0) {
			Py_XDECREF(p);
			goto fail;
		}
		Py_DECREF(p);
	}
	if (dset(r, "version", PyUnicode_FromFormat("%u.%u", in->ver_major, in->ver_minor)) ||
	    dset(r, "caps", caps) || dset(r, "parts", parts) || DSET_S(r, in, preset) ||
	    DSET_U(r, in, max_xfer) || DSET_U(r, in, max_tickets) ||
	    DSET_U(r, in, max_result_bytes) || DSET_U(r, in, channels) ||
	    DSET_U(r, in, dies_per_channel) || DSET_U(r, in, planes_per_die) ||
	    DSET_U(r, in, blocks_per_plane) || DSET_U(r, in, pages_per_block) ||
	    DSET_U(r, in, page_bytes) || DSET_U(r, in, oob_bytes) ||
	    DSET_U(r, in, subpage_bytes) || DSET_U(r, in, raw_capacity_bytes) ||
	    DSET_U(r, in, dram_bytes) || DSET_U(r, in, dram_used) ||
	    DSET_U(r, in, free_bytes) || DSET_U(r, in, cores) || DSET_U(r, in, channel_mbps) ||
	    DSET_U(r, in, core_mhz) || DSET_U(r, in, link_mbps) || DSET_U(r, in, ctrl_cmd_ns) ||
	    DSET_U(r, in, max_dbs) || DSET_U(r, in, max_tables) || DSET_U(r, in, ndbs) ||
	    DSET_U(r, in, slc_free_bytes) || DSET_U(r, in, native_free_bytes) ||
	    DSET_U(r, in, db_room)) {
		caps = parts = NULL;
		goto fail;
	}
	return r;
fail:
	Py_XDECREF(r);
	Py_XDECREF(caps);
	Py_XDECREF(parts);
	return NULL;
}

static PyObject *Drive_info(Drive *d, PyObject *unused)
{
	struct reis_info in;
	PyObject *r;
	int ret;

	(void)unused;
	if (dev_open(d))
		return NULL;
	DEV_CALL(d, ret = reis_identify(d->dev, &in));
	r = ret ? raise_err(d->dev, ret, NULL) : info_dict(&in);
	dev_unlock(d);
	return r;
}

/* Per-class counters as {name: value}. */
static PyObject *class_dict(const uint64_t *v, unsigned n, const char *(*name)(unsigned))
{
	PyObject *r = PyDict_New();
	unsigned i;

	for (i = 0; r && i < n; i++)
		if (dset(r, name(i), PyLong_FromUnsignedLongLong(v[i]))) {
			Py_DECREF(r);
			return NULL;
		}
	return r;
}

static PyObject *stats_dict(const struct reis_stats *s)
{
	PyObject *r = PyDict_New();

	if (!r)
		return NULL;
	if (dset(r, "cmds", class_dict(s->cmds, REIS_CLS_N, reis_cmd_class_name)) ||
	    dset(r, "errors", class_dict(s->errors, REIS_CLS_N, reis_cmd_class_name)) ||
	    dset(r, "busy_ns", class_dict(s->busy_ns, REIS_RES_N, reis_res_class_name)) ||
	    dset(r, "nres", class_dict(s->nres, REIS_RES_N, reis_res_class_name)) ||
	    dset(r, "page_reads", u64_list(s->page_reads + 1, 4)) ||
	    dset(r, "page_programs", u64_list(s->page_programs + 1, 4)) ||
	    DSET_U(r, s, block_erases) || DSET_U(r, s, channel_bytes) ||
	    DSET_U(r, s, link_bytes_h2c) || DSET_U(r, s, link_bytes_c2h) ||
	    DSET_U(r, s, model_ns) || DSET_U(r, s, emul_ns) || DSET_U(r, s, energy_pj) ||
	    DSET_U(r, s, filtered_entries) || DSET_U(r, s, ttl_entries) ||
	    DSET_U(r, s, cache_hits) || DSET_U(r, s, cache_misses) || DSET_U(r, s, searches) ||
	    DSET_U(r, s, sls_bags) || DSET_U(r, s, remaps)) {
		Py_DECREF(r);
		return NULL;
	}
	return r;
}

static PyObject *Drive_stats(Drive *d, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "reset", NULL };
	struct reis_stats st;
	int reset = 0, ret;
	PyObject *r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|p", kwlist, &reset) || dev_open(d))
		return NULL;
	DEV_CALL(d, ret = reis_stats(d->dev, reset ? REIS_STATS_RESET : 0, &st));
	r = ret ? raise_err(d->dev, ret, NULL) : stats_dict(&st);
	dev_unlock(d);
	return r;
}

/* ---------------------------------------------------------------------- */
/* Databases                                                               */
/* ---------------------------------------------------------------------- */

static PyObject *dbinfo_dict(const struct reis_db_info *i)
{
	PyObject *r = PyDict_New();

	if (!r)
		return NULL;
	if (DSET_U(r, i, did) ||
	    dset(r, "kind", PyUnicode_FromString(i->kind == REIS_DB_IVF ? "ivf" : "flat")) ||
	    dset(r, "metric", PyUnicode_FromString(i->metric == REIS_METRIC_L2 ? "l2" : "ip")) ||
	    dset(r, "int8", PyBool_FromLong(!!(i->flags & REIS_DBF_INT8))) ||
	    dset(r, "tags", PyBool_FromLong(!!(i->flags & REIS_DBF_TAGS))) ||
	    dset(r, "ids", PyBool_FromLong(!!(i->flags & REIS_DBF_IDS))) ||
	    dset(r, "ready", PyBool_FromLong(i->state == REIS_DB_READY)) ||
	    DSET_U(r, i, flags) || DSET_U(r, i, dim) || DSET_U(r, i, n) || DSET_U(r, i, nlist) ||
	    DSET_U(r, i, ncalib) || DSET_U(r, i, doc_mode) || DSET_U(r, i, df_threshold) ||
	    DSET_U(r, i, group) || DSET_U(r, i, timestamp) || DSET_U(r, i, docs_bytes) ||
	    DSET_S(r, i, name) || DSET_U(r, i, epb) || DSET_U(r, i, meta_bytes) ||
	    dset(r, "best_recall", PyFloat_FromDouble(i->best_recall / 10000.0)) ||
	    dset(r, "pages", u64_list(i->pages, 4)) || DSET_U(r, i, dram_bytes) ||
	    DSET_U(r, i, searches)) {
		Py_DECREF(r);
		return NULL;
	}
	return r;
}

static PyObject *Drive_db_info(Drive *d, PyObject *arg)
{
	struct reis_db_info i;
	unsigned long did = PyLong_AsUnsignedLong(arg);
	PyObject *r;
	int ret;

	if (PyErr_Occurred() || dev_open(d))
		return NULL;
	DEV_CALL(d, ret = reis_db_info(d->dev, (uint32_t)did, &i));
	r = ret ? raise_err(d->dev, ret, NULL) : dbinfo_dict(&i);
	dev_unlock(d);
	return r;
}

/*
 * A catalog command (DB_LIST, TBL_LIST): how many entries, then all of
 * them, each as a dict.
 */
struct catalog {
	size_t size;
	int (*list)(struct reis_dev *dev, void *out, unsigned max);
	PyObject *(*dict)(const void *entry);
};

static PyObject *catalog(Drive *d, const struct catalog *c)
{
	uint8_t *l = NULL;
	PyObject *r = NULL;
	int n, i, ret;

	if (dev_open(d))
		return NULL;
	dev_lock(d);
	Py_BEGIN_ALLOW_THREADS
	n = c->list(d->dev, NULL, 0);
	if (n > 0) {
		l = calloc((size_t)n, c->size);
		ret = l ? c->list(d->dev, l, (unsigned)n) : -ENOMEM;
		if (ret < n)
			n = ret;
	}
	Py_END_ALLOW_THREADS
	if (n < 0) {
		raise_err(d->dev, n, NULL);
		goto out;
	}
	r = PyList_New(n);
	for (i = 0; r && i < n; i++) {
		PyObject *x = c->dict(l + (size_t)i * c->size);

		if (!x) {
			Py_CLEAR(r);
			break;
		}
		PyList_SET_ITEM(r, i, x);
	}
out:
	dev_unlock(d);
	free(l);
	return r;
}

static int db_list(struct reis_dev *dev, void *out, unsigned max)
{
	return reis_db_list(dev, out, max);
}

static PyObject *db_dict(const void *e)
{
	return dbinfo_dict(e);
}

static PyObject *Drive_databases(Drive *d, PyObject *unused)
{
	static const struct catalog c = { sizeof(struct reis_db_info), db_list, db_dict };

	(void)unused;
	return catalog(d, &c);
}

/*
 * id_call() - a command that takes one database or table id and returns
 * nothing (delete, switch): the id forgotten in @cache (may be NULL) either
 * way, the failure raised.
 */
static PyObject *id_call(Drive *d, PyObject *arg, int (*fn)(struct reis_dev *, uint32_t),
			 PyObject *cache)
{
	unsigned long id = PyLong_AsUnsignedLong(arg);
	int ret;

	if (PyErr_Occurred() || dev_open(d))
		return NULL;
	if (id > UINT32_MAX) {
		PyErr_SetString(PyExc_ValueError, "ids are 32-bit");
		return NULL;
	}
	DEV_CALL(d, ret = fn(d->dev, (uint32_t)id));
	if (cache && PyDict_DelItem(cache, arg) < 0)
		PyErr_Clear();
	if (ret)
		raise_err(d->dev, ret, NULL);
	dev_unlock(d);
	if (ret)
		return NULL;
	Py_RETURN_NONE;
}

static PyObject *Drive_delete(Drive *d, PyObject *arg)
{
	return id_call(d, arg, reis_db_delete, d->dbs);
}

/* ---------------------------------------------------------------------- */
/* Images                                                                  */
/* ---------------------------------------------------------------------- */

typedef struct {
	PyObject_HEAD
	struct reis_db_image img;
	int owned;		/* built or loaded: reis_db_image_free() owns the arrays */
	PyObject *keep;		/* arrays the image points into (from codes) */
	uint8_t *docs;		/* packed DOCS section (from codes) */
} Image;

static PyTypeObject ImageType;

static void Image_dealloc(Image *im)
{
	uint8_t *docs = im->docs;

	/* A hand-filled image: only doc_index (from the check) is the library's. */
	reis_db_image_free(&im->img);
	free(docs);
	Py_XDECREF(im->keep);
	Py_TYPE(im)->tp_free((PyObject *)im);
}

/*
 * docs_arg() - documents as the (blob, n + 1 offsets) pair the C API
 * takes: @docs is a sequence of bytes/str (packed here into @own_blob and
 * @own_off), or a bytes-like blob with @offsets. The arrays stay valid while
 * @keep holds the references added to it.
 */
static int docs_arg(PyObject *docs, PyObject *offsets, uint64_t n, PyObject *keep,
		    const uint8_t **blob, const uint64_t **off, uint8_t **own_blob,
		    uint64_t **own_off)
{
	*blob = NULL;
	*off = NULL;
	*own_blob = NULL;
	*own_off = NULL;
	if (!docs || docs == Py_None)
		return 0;
	if (offsets && offsets != Py_None) {
		PyArrayObject *b = as_array(docs, NPY_UINT8, 1, "docs", 0), *o;

		if (!b)
			return -1;
		o = as_array(offsets, NPY_UINT64, 1, "doc_offsets", 0);
		if (!o || len_of(o, (npy_intp)n + 1, "doc_offsets") ||
		    PyList_Append(keep, (PyObject *)b) < 0 ||
		    PyList_Append(keep, (PyObject *)o) < 0) {
			Py_DECREF(b);
			Py_XDECREF(o);
			return -1;
		}
		if (((const uint64_t *)PyArray_DATA(o))[n] > (uint64_t)PyArray_SIZE(b)) {
			PyErr_SetString(PyExc_ValueError, "doc_offsets point past the end of docs");
			Py_DECREF(b);
			Py_DECREF(o);
			return -1;
		}
		*blob = PyArray_DATA(b);
		*off = PyArray_DATA(o);
		Py_DECREF(b);
		Py_DECREF(o);
		return 0;
	} else {
		PyObject *seq = PySequence_Fast(docs, "docs must be a sequence of bytes or str, or "
						"a blob with doc_offsets");
		Py_ssize_t i, m;
		uint64_t total = 0;

		if (!seq)
			return -1;
		m = PySequence_Fast_GET_SIZE(seq);
		if ((uint64_t)m != n) {
			PyErr_Format(PyExc_ValueError, "%zd documents for %llu vectors", m,
				     (unsigned long long)n);
			Py_DECREF(seq);
			return -1;
		}
		*own_off = malloc(((size_t)n + 1) * sizeof(uint64_t));
		for (i = 0; *own_off && i < m; i++) {
			PyObject *o = PySequence_Fast_GET_ITEM(seq, i);
			Py_ssize_t len;

			if (PyUnicode_Check(o)) {
				if (!PyUnicode_AsUTF8AndSize(o, &len))
					goto bad;
			} else if (PyBytes_Check(o)) {
				len = PyBytes_GET_SIZE(o);
			} else {
				PyErr_Format(PyExc_TypeError, "document %zd is not bytes or str", i);
				goto bad;
			}
			(*own_off)[i] = total;
			total += (uint64_t)len;
		}
		if (!*own_off) {
			PyErr_NoMemory();
			goto bad;
		}
		(*own_off)[n] = total;
		*own_blob = malloc(total ? total : 1);
		if (!*own_blob) {
			PyErr_NoMemory();
			goto bad;
		}
		for (i = 0; i < m; i++) {
			PyObject *o = PySequence_Fast_GET_ITEM(seq, i);
			const char *p = PyUnicode_Check(o) ? PyUnicode_AsUTF8(o) :
							     PyBytes_AS_STRING(o);

			memcpy(*own_blob + (*own_off)[i], p, (*own_off)[i + 1] - (*own_off)[i]);
		}
		Py_DECREF(seq);
		*blob = *own_blob;
		*off = *own_off;
		return 0;
bad:
		Py_DECREF(seq);
		free(*own_off);
		*own_off = NULL;
		return -1;
	}
}

static Image *image_alloc(void)
{
	Image *im = PyObject_New(Image, &ImageType);

	if (!im)
		return NULL;
	memset(&im->img, 0, sizeof(im->img));
	im->owned = 0;
	im->docs = NULL;
	im->keep = PyList_New(0);
	if (!im->keep) {
		Py_DECREF(im);
		return NULL;
	}
	return im;
}

/* An optional per-row array of @type and @n elements, kept alive in @keep. */
static const void *row_arg(PyObject *o, int type, uint64_t n, const char *what, PyObject *keep,
			   int *err)
{
	PyArrayObject *a;
	const void *p;

	*err = 0;
	if (!o || o == Py_None)
		return NULL;
	a = as_array(o, type, 1, what, 0);
	if (!a || len_of(a, (npy_intp)n, what) || PyList_Append(keep, (PyObject *)a) < 0) {
		Py_XDECREF(a);
		*err = -1;
		return NULL;
	}
	p = PyArray_DATA(a);
	Py_DECREF(a);
	return p;
}

static PyObject *mod_build(PyObject *m, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "x", "did", "kind", "metric", "nlist", "int8", "center",
				  "docs", "doc_offsets", "ids", "tags", "name", "df_threshold",
				  "doc_mode", "group", "timestamp", "calib_queries", "calib_k",
				  "seed", "majority", NULL };
	PyObject *xo, *kind = NULL, *metric = NULL, *docs = NULL, *offs = NULL, *ids = NULL,
		 *tags = NULL, *dm = NULL, *cq = NULL;
	unsigned did = 1, nlist = 0, df = 0, group = 0, calib_k = 0;
	unsigned long long ts = 0, seed = 0;
	int int8 = 1, center = 0, majority = 0, ret = 0, e1, e2;
	const char *name = NULL;
	struct reis_build_opts o;
	PyArrayObject *x = NULL, *c = NULL;
	uint8_t *own_blob = NULL;
	uint64_t *own_off = NULL;
	Image *im = NULL;
	npy_intp n, dim;
	char err[256] = "";

	(void)m;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$IOOIppOOOOzIOIKOIKp", kwlist, &xo, &did,
					 &kind, &metric, &nlist, &int8, &center, &docs, &offs,
					 &ids, &tags, &name, &df, &dm, &group, &ts, &cq, &calib_k,
					 &seed, &majority))
		return NULL;
	memset(&o, 0, sizeof(o));
	if (pick(kind, kinds, "kind", REIS_DB_BF, &o.kind) ||
	    pick(metric, metrics, "metric", REIS_METRIC_IP, &o.metric) ||
	    pick(dm, doc_modes, "doc_mode", REIS_DOC_NONE, &o.doc_mode))
		return NULL;
	x = as_array(xo, NPY_FLOAT32, 2, "x", 0);
	if (!x)
		return NULL;
	if (PyArray_NDIM(x) != 2) {
		PyErr_SetString(PyExc_ValueError, "x must be two-dimensional (n, dim)");
		goto out;
	}
	n = PyArray_DIM(x, 0);
	dim = PyArray_DIM(x, 1);
	im = image_alloc();
	if (!im)
		goto out;
	o.did = did;
	o.flags = (int8 ? REIS_BUILD_INT8 : 0) | (center ? REIS_BUILD_CENTER : 0) |
		  (majority ? REIS_BUILD_CENTROID_MAJORITY : 0);
	o.nlist = nlist;
	o.df_threshold = df;
	o.group = group;
	o.timestamp = ts;
	o.name = name;
	o.km.seed = seed;
	o.ids = row_arg(ids, NPY_UINT64, (uint64_t)n, "ids", im->keep, &e1);
	o.tags = row_arg(tags, NPY_UINT32, (uint64_t)n, "tags", im->keep, &e2);
	if (e1 || e2)
		goto out;
	if (docs_arg(docs, offs, (uint64_t)n, im->keep, &o.docs, &o.doc_offsets, &own_blob,
		     &own_off))
		goto out;
	if (cq && cq != Py_None) {
		npy_intp nc;

		c = as_array(cq, NPY_FLOAT32, 2, "calib_queries", 0);
		if (!c || rows_of(c, dim, "calib_queries", &nc))
			goto out;
		o.calib_queries = PyArray_DATA(c);
		o.ncalib_queries = (uint32_t)nc;
		o.calib_k = calib_k;
	}
	Py_BEGIN_ALLOW_THREADS
	ret = reis_db_build(&o, PyArray_DATA(x), (uint64_t)n, (uint32_t)dim, &im->img, err,
			    sizeof(err));
	Py_END_ALLOW_THREADS
	if (ret) {
		raise_err(NULL, ret, err[0] ? err : "build failed");
		goto out;
	}
	im->owned = 1;
	PyList_SetSlice(im->keep, 0, PY_SSIZE_T_MAX, NULL);	/* the build copied them */
	free(own_blob);
	free(own_off);
	Py_DECREF(x);
	Py_XDECREF(c);
	return (PyObject *)im;
out:
	free(own_blob);
	free(own_off);
	Py_XDECREF(x);
	Py_XDECREF(c);
	Py_XDECREF(im);
	return NULL;
}

static PyObject *mod_from_codes(PyObject *m, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "codes", "did", "int8", "ids", "tags", "docs", "doc_offsets",
				  "kind", "metric", "centroids", "cluster_sizes", "calib", "name",
				  "df_threshold", "doc_mode", "group", "timestamp", "dim", NULL };
	PyObject *co, *i8 = NULL, *ids = NULL, *tags = NULL, *docs = NULL, *offs = NULL,
		 *kind = NULL, *metric = NULL, *cen = NULL, *cs = NULL, *cal = NULL, *dm = NULL;
	unsigned did = 1, df = 0, group = 0, dimarg = 0;
	unsigned long long ts = 0;
	const char *name = NULL;
	PyArrayObject *codes = NULL, *a;
	const uint8_t *blob;
	const uint64_t *off;
	uint8_t *own_blob = NULL;
	uint64_t *own_off = NULL, dlen = 0;
	npy_intp n, bytes;
	Image *im;
	char err[256];
	int e, ret;

	(void)m;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$IOOOOOOOOOOzIOIKI", kwlist, &co, &did,
					 &i8, &ids, &tags, &docs, &offs, &kind, &metric, &cen, &cs,
					 &cal, &name, &df, &dm, &group, &ts, &dimarg))
		return NULL;
	im = image_alloc();
	if (!im)
		return NULL;
	if (pick(kind, kinds, "kind", REIS_DB_BF, &im->img.kind) ||
	    pick(metric, metrics, "metric", REIS_METRIC_IP, &im->img.metric) ||
	    pick(dm, doc_modes, "doc_mode", REIS_DOC_NONE, &im->img.doc_mode))
		goto fail;
	codes = as_array(co, NPY_UINT8, 2, "codes", 0);
	if (!codes || PyList_Append(im->keep, (PyObject *)codes) < 0)
		goto fail;
	if (PyArray_NDIM(codes) != 2) {
		PyErr_SetString(PyExc_ValueError, "codes must be two-dimensional (n, dim / 8)");
		goto fail;
	}
	n = PyArray_DIM(codes, 0);
	bytes = PyArray_DIM(codes, 1);
	im->img.did = did;
	im->img.dim = dimarg ? dimarg : (uint32_t)bytes * 8;
	if (im->img.dim != (uint64_t)bytes * 8) {
		PyErr_Format(PyExc_ValueError, "codes of %zd bytes are not dim %u", bytes, dimarg);
		goto fail;
	}
	im->img.n = (uint64_t)n;
	im->img.bin = PyArray_DATA(codes);
	im->img.df_threshold = df;
	im->img.group = group;
	im->img.timestamp = ts;
	if (name)
		snprintf(im->img.name, sizeof(im->img.name), "%s", name);
	if (i8 && i8 != Py_None) {
		npy_intp r;

		a = as_array(i8, NPY_INT8, 2, "int8", 0);
		if (!a || PyList_Append(im->keep, (PyObject *)a) < 0 ||
		    rows_of(a, im->img.dim, "int8", &r)) {
			Py_XDECREF(a);
			goto fail;
		}
		Py_DECREF(a);
		if (r != n) {
			PyErr_SetString(PyExc_ValueError, "int8 must have as many rows as codes");
			goto fail;
		}
		im->img.int8 = PyArray_DATA(a);
		im->img.flags |= REIS_DBF_INT8;
	}
	im->img.ids = row_arg(ids, NPY_UINT64, (uint64_t)n, "ids", im->keep, &e);
	if (e)
		goto fail;
	if (im->img.ids)
		im->img.flags |= REIS_DBF_IDS;
	im->img.tags = row_arg(tags, NPY_UINT32, (uint64_t)n, "tags", im->keep, &e);
	if (e)
		goto fail;
	if (im->img.tags)
		im->img.flags |= REIS_DBF_TAGS;
	if (docs_arg(docs, offs, (uint64_t)n, im->keep, &blob, &off, &own_blob, &own_off))
		goto fail;
	if (blob) {
		ret = reis_docs_pack(blob, off, NULL, (uint64_t)n, &im->docs, &dlen);
		free(own_blob);
		free(own_off);
		if (ret) {
			raise_err(NULL, ret, "docs: offsets must ascend");
			goto fail;
		}
		im->img.docs = im->docs;
		im->img.docs_bytes = dlen;
	}
	if (im->img.kind == REIS_DB_IVF) {
		npy_intp nl;

		a = as_array(cen, NPY_UINT8, 2, "centroids", 0);
		if (!a || PyList_Append(im->keep, (PyObject *)a) < 0 ||
		    rows_of(a, bytes, "centroids", &nl)) {
			Py_XDECREF(a);
			goto fail;
		}
		Py_DECREF(a);
		im->img.centroids = PyArray_DATA(a);
		im->img.nlist = (uint32_t)nl;
		im->img.cluster_sizes = row_arg(cs, NPY_UINT32, (uint64_t)nl, "cluster_sizes",
						im->keep, &e);
		if (e)
			goto fail;
		if (!im->img.cluster_sizes) {
			PyErr_SetString(PyExc_TypeError, "kind='ivf' needs cluster_sizes");
			goto fail;
		}
		if (cal && cal != Py_None) {
			npy_intp np_;

			a = as_array(cal, NPY_UINT32, 2, "calib", 0);
			if (!a || PyList_Append(im->keep, (PyObject *)a) < 0 ||
			    rows_of(a, 2, "calib (recall in 1/10000, nprobe) pairs", &np_)) {
				Py_XDECREF(a);
				goto fail;
			}
			Py_DECREF(a);
			im->img.calib = PyArray_DATA(a);
			im->img.ncalib = (uint32_t)np_;
		}
	} else if ((cen && cen != Py_None) || (cs && cs != Py_None)) {
		PyErr_SetString(PyExc_ValueError, "centroids and cluster_sizes need kind='ivf'");
		goto fail;
	}
	ret = reis_db_image_check(&im->img, err, sizeof(err));
	if (ret) {
		raise_err(NULL, ret, err);
		goto fail;
	}
	return (PyObject *)im;
fail:
	Py_DECREF(im);
	return NULL;
}

static PyObject *mod_load(PyObject *m, PyObject *arg)
{
	PyObject *b;
	Image *im;
	char err[256] = "";
	int ret;

	(void)m;
	if (!PyUnicode_FSConverter(arg, &b))
		return NULL;
	im = image_alloc();
	if (!im) {
		Py_DECREF(b);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	ret = reis_db_image_load(PyBytes_AS_STRING(b), &im->img, err, sizeof(err));
	Py_END_ALLOW_THREADS
	Py_DECREF(b);
	if (ret) {
		Py_DECREF(im);
		return raise_err(NULL, ret, err);
	}
	im->owned = 1;
	return (PyObject *)im;
}

static PyObject *Image_save(Image *im, PyObject *arg)
{
	PyObject *b;
	int ret;

	if (!PyUnicode_FSConverter(arg, &b))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	ret = reis_db_image_save(&im->img, PyBytes_AS_STRING(b));
	Py_END_ALLOW_THREADS
	Py_DECREF(b);
	if (ret)
		return raise_err(NULL, ret, "saving the image failed");
	Py_RETURN_NONE;
}

/* The image's binary codes in entry order, as an (n, dim / 8) copy. */
static PyObject *Image_get_codes(Image *im, void *c)
{
	PyObject *a = new_array(2, (npy_intp)im->img.n, im->img.dim / 8, NPY_UINT8);

	(void)c;
	if (a)
		memcpy(PyArray_DATA((PyArrayObject *)a), im->img.bin, im->img.n * (im->img.dim / 8));
	return a;
}

/* Row number of each entry (IVF orders entries by cluster), from the ids. */
static PyObject *Image_get_ids(Image *im, void *c)
{
	PyObject *a;

	(void)c;
	if (!im->img.ids)
		Py_RETURN_NONE;
	a = new_array(1, (npy_intp)im->img.n, 0, NPY_UINT64);
	if (a)
		memcpy(PyArray_DATA((PyArrayObject *)a), im->img.ids, im->img.n * 8);
	return a;
}

static PyObject *Image_get_cluster_sizes(Image *im, void *c)
{
	PyObject *a;

	(void)c;
	if (!im->img.cluster_sizes)
		Py_RETURN_NONE;
	a = new_array(1, im->img.nlist, 0, NPY_UINT32);
	if (a)
		memcpy(PyArray_DATA((PyArrayObject *)a), im->img.cluster_sizes,
		       (size_t)im->img.nlist * 4);
	return a;
}

static PyObject *Image_get_did(Image *im, void *c)
{
	(void)c;
	return PyLong_FromUnsignedLong(im->img.did);
}

static int Image_set_did(Image *im, PyObject *v, void *c)
{
	unsigned long did;

	(void)c;
	if (!v) {
		PyErr_SetString(PyExc_AttributeError, "did cannot be deleted");
		return -1;
	}
	did = PyLong_AsUnsignedLong(v);
	if (PyErr_Occurred())
		return -1;
	if (!did || did > UINT32_MAX) {
		PyErr_SetString(PyExc_ValueError, "did must be 1..2**32-1");
		return -1;
	}
	im->img.did = (uint32_t)did;
	return 0;
}

static PyObject *Image_get_info(Image *im, void *c)
{
	const struct reis_db_image *g = &im->img;

	(void)c;
	return Py_BuildValue("{s:I,s:s,s:s,s:I,s:K,s:I,s:I,s:O,s:O,s:O,s:O,s:K,s:I,s:s}",
			     "did", g->did, "kind", g->kind == REIS_DB_IVF ? "ivf" : "flat",
			     "metric", g->metric == REIS_METRIC_L2 ? "l2" : "ip", "dim", g->dim,
			     "n", (unsigned long long)g->n, "nlist", g->nlist, "ncalib", g->ncalib,
			     "int8", g->int8 ? Py_True : Py_False, "ids",
			     g->ids ? Py_True : Py_False, "tags", g->tags ? Py_True : Py_False,
			     "quantizer", g->quant ? Py_True : Py_False,
			     "docs_bytes", (unsigned long long)g->docs_bytes, "df_threshold",
			     g->df_threshold, "name", g->name);
}

/* ---------------------------------------------------------------------- */
/* Searches: arguments, queries, results                                   */
/* ---------------------------------------------------------------------- */

struct sargs {
	struct reis_search_opts o;
	struct reis_queries q;
	struct reis_queries enc;	/* malloc'd by reis_encode_queries() */
	PyArrayObject *x, *bin, *i8;
	int ivf;			/* -1: from the database's kind */
	int rerank;
	int docs;
};

static void sargs_free(struct sargs *s)
{
	reis_queries_free(&s->enc);
	Py_XDECREF(s->x);
	Py_XDECREF(s->bin);
	Py_XDECREF(s->i8);
}

/*
 * The search's keyword names, interned once: METH_FASTCALL hands over the
 * call's own (interned) name objects, so matching is a pointer compare.
 */
enum {
	SA_DID, SA_X, SA_K, SA_CODES, SA_INT8, SA_IVF, SA_NPROBE, SA_RECALL, SA_RERANK,
	SA_FACTOR, SA_DF, SA_TAG, SA_DOCS, SA_FLAGS, SA_N
};
static const char *const sa_names[SA_N] = {
	"did", "x", "k", "codes", "int8", "ivf", "nprobe", "target_recall", "rerank",
	"rerank_factor", "df_threshold", "tag", "docs", "flags" };
static PyObject *sa_interned[SA_N];

/*
 * fast_args() - the values of a METH_FASTCALL | METH_KEYWORDS call: slots
 * [first, first + nargs) from the positional arguments (at most @npos), the
 * keywords by name; unset slots stay NULL. Borrowed references.
 */
static int fast_args(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, int first,
		     int npos, PyObject **v)
{
	Py_ssize_t i, nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
	int j;

	for (j = 0; j < SA_N; j++)
		v[j] = NULL;
	if (nargs > npos) {
		PyErr_Format(PyExc_TypeError, "search takes at most %d positional arguments", npos);
		return -1;
	}
	for (i = 0; i < nargs; i++)
		v[first + i] = args[i];
	for (i = 0; i < nkw; i++) {
		PyObject *name = PyTuple_GET_ITEM(kwnames, i);

		for (j = first; j < SA_N; j++)
			if (name == sa_interned[j])
				break;
		if (j == SA_N)
			for (j = first; j < SA_N; j++)
				if (PyUnicode_Compare(name, sa_interned[j]) == 0)
					break;
		if (j == SA_N) {
			PyErr_Format(PyExc_TypeError, "search got an unexpected keyword argument '%U'",
				     name);
			return -1;
		}
		if (v[j]) {
			PyErr_Format(PyExc_TypeError, "search got multiple values for '%U'", name);
			return -1;
		}
		v[j] = args[nargs + i];
	}
	return 0;
}

/* An unsigned 32-bit argument (absent: @dflt). */
static int u32_arg(PyObject *o, const char *what, uint32_t dflt, uint32_t *out)
{
	unsigned long v;

	*out = dflt;
	if (!o || o == Py_None)
		return 0;
	v = PyLong_AsUnsignedLong(o);
	if (v == (unsigned long)-1 && PyErr_Occurred()) {
		PyErr_Format(PyExc_TypeError, "%s must be a non-negative integer", what);
		return -1;
	}
	if (v > UINT32_MAX) {
		PyErr_Format(PyExc_ValueError, "%s %lu does not fit 32 bits", what, v);
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

static int bool_arg(PyObject *o, int dflt)
{
	return o ? PyObject_IsTrue(o) : dflt;
}

/* Parse a search's arguments (the database's facts are applied later). */
static int sargs_parse(struct sargs *s, PyObject *const *args, Py_ssize_t nargs,
		       PyObject *kwnames, int need_did)
{
	PyObject *v[SA_N];
	uint32_t flags;
	double recall = 0;
	int rerank, docs;

	memset(s, 0, sizeof(*s));
	if (fast_args(args, nargs, kwnames, need_did ? SA_DID : SA_X, need_did ? 3 : 2, v))
		return -1;
	if (need_did && !v[SA_DID]) {
		PyErr_SetString(PyExc_TypeError, "search needs the database id (did)");
		return -1;
	}
	if (u32_arg(v[SA_DID], "did", 0, &s->o.did) || u32_arg(v[SA_K], "k", 10, &s->o.k) ||
	    u32_arg(v[SA_NPROBE], "nprobe", 0, &s->o.nprobe) ||
	    u32_arg(v[SA_FACTOR], "rerank_factor", 0, &s->o.rerank_factor) ||
	    u32_arg(v[SA_DF], "df_threshold", 0, &s->o.df_threshold) ||
	    u32_arg(v[SA_FLAGS], "flags", 0, &flags))
		return -1;
	if (v[SA_RECALL] && v[SA_RECALL] != Py_None) {
		recall = PyFloat_AsDouble(v[SA_RECALL]);
		if (recall == -1 && PyErr_Occurred())
			return -1;
	}
	rerank = bool_arg(v[SA_RERANK], 1);
	docs = bool_arg(v[SA_DOCS], 0);
	if (rerank < 0 || docs < 0)
		return -1;
	if (recall < 0 || recall > 1) {
		PyErr_SetString(PyExc_ValueError, "target_recall must be in [0, 1]");
		return -1;
	}
	if (!v[SA_X] || v[SA_X] == Py_None) {
		if (!v[SA_CODES] || v[SA_CODES] == Py_None) {
			PyErr_SetString(PyExc_TypeError, "give the queries as x (float vectors) or "
					"as codes (binary, with int8 for the rerank)");
			return -1;
		}
	} else if (v[SA_CODES] && v[SA_CODES] != Py_None) {
		PyErr_SetString(PyExc_TypeError, "give the queries as x or as codes, not both");
		return -1;
	}
	s->o.target_recall = (uint32_t)(recall * 10000 + 0.5);
	s->o.flags = flags | (docs ? REIS_SF_DOCS : 0) | (rerank ? 0 : REIS_SF_NO_RERANK);
	if (v[SA_TAG] && v[SA_TAG] != Py_None) {
		if (u32_arg(v[SA_TAG], "tag", 0, &s->o.tag))
			return -1;
		s->o.flags |= REIS_SF_TAG;
	}
	s->ivf = !v[SA_IVF] || v[SA_IVF] == Py_None ? -1 : PyObject_IsTrue(v[SA_IVF]);
	if (s->ivf < -1)
		return -1;
	s->rerank = rerank;
	s->docs = docs;
	if (v[SA_X] && v[SA_X] != Py_None) {
		s->x = as_array(v[SA_X], NPY_FLOAT32, 2, "x", 0);
		if (!s->x)
			return -1;
	} else {
		s->bin = as_array(v[SA_CODES], NPY_UINT8, 2, "codes", 0);
		if (!s->bin)
			return -1;
		s->i8 = as_array(v[SA_INT8], NPY_INT8, 2, "int8", 1);
		if (!s->i8 && PyErr_Occurred())
			return -1;
	}
	return 0;
}

/*
 * sargs_queries() - the queries for a database of @dim dimensions with
 * INT8 codes or not (@has_int8), encoded with @quant from float vectors.
 */
static int sargs_queries(struct sargs *s, uint32_t dim, int has_int8,
			 const struct reis_quant *quant)
{
	npy_intp nq;
	int ret;

	if (!has_int8)
		s->o.flags |= REIS_SF_NO_RERANK;
	if (s->x) {
		if (rows_of(s->x, dim, "x", &nq))
			return -1;
		if (!quant) {
			PyErr_Format(PyExc_ValueError, "database %u carries no quantizer: pass "
				     "the queries' codes (and int8) instead of x", s->o.did);
			return -1;
		}
		if (nq > UINT32_MAX) {
			PyErr_SetString(PyExc_ValueError, "too many queries");
			return -1;
		}
		ret = reis_encode_queries(quant, PyArray_DATA(s->x), (uint32_t)nq, &s->enc);
		if (ret) {
			raise_err(NULL, ret, "encoding the queries failed");
			return -1;
		}
		s->q = s->enc;
		return 0;
	}
	if (rows_of(s->bin, dim / 8, "codes", &nq))
		return -1;
	s->q.nq = (uint32_t)nq;
	s->q.dim = dim;
	s->q.bin = PyArray_DATA(s->bin);
	if (s->i8) {
		npy_intp r;

		if (rows_of(s->i8, dim, "int8", &r))
			return -1;
		if (r != nq) {
			PyErr_SetString(PyExc_ValueError, "int8 and codes differ in rows");
			return -1;
		}
		s->q.int8 = PyArray_DATA(s->i8);
	} else if (!(s->o.flags & REIS_SF_NO_RERANK)) {
		PyErr_SetString(PyExc_ValueError, "the rerank needs the queries' int8 codes: pass "
				"int8=, or x instead of codes, or rerank=False");
		return -1;
	}
	return 0;
}

/*
 * SearchResult: the C result kept as it is; the numpy arrays and the
 * documents are made the first time they are asked for (a FAISS-shaped
 * caller reads two of them), the cost fields read straight from it.
 */
typedef struct {
	PyObject_HEAD
	struct reis_search_result r;
	int docs;
	PyObject *owner;	/* what the documents point into (an Image), or NULL */
	PyObject *cache[6];
} SearchResult;

enum { SR_IDS, SR_DIST, SR_SCORES, SR_ENTRIES, SR_NHITS, SR_DOCS };

static void SearchResult_dealloc(SearchResult *o)
{
	int i;

	for (i = 0; i < 6; i++)
		Py_XDECREF(o->cache[i]);
	reis_search_result_free(&o->r);
	Py_XDECREF(o->owner);
	Py_TYPE(o)->tp_free((PyObject *)o);
}

/* Takes @r over (zeroed); NULL (with @r freed) on failure. */
static PyObject *search_result(struct reis_search_result *r, int docs, PyObject *owner)
{
	SearchResult *o = PyObject_New(SearchResult, &SearchResultType);

	if (!o) {
		reis_search_result_free(r);
		return NULL;
	}
	o->r = *r;
	memset(r, 0, sizeof(*r));
	o->docs = docs;
	o->owner = owner;
	Py_XINCREF(owner);
	memset(o->cache, 0, sizeof(o->cache));
	return (PyObject *)o;
}

static PyObject *sr_make(SearchResult *o, int which)
{
	const struct reis_search_result *r = &o->r;
	npy_intp nq = r->nq, k = r->k, i;
	PyObject *a;

	if (which == SR_NHITS) {
		a = new_array(1, nq, 0, NPY_INT32);
		for (i = 0; a && i < nq; i++)
			((int32_t *)PyArray_DATA((PyArrayObject *)a))[i] = (int32_t)r->nhits[i];
		return a;
	}
	if (which == SR_DOCS) {
		if (!o->docs)
			Py_RETURN_NONE;
		a = PyList_New(nq);
		for (i = 0; a && i < nq; i++) {
			PyObject *l = PyList_New(r->nhits[i]);
			uint32_t j;

			for (j = 0; l && j < r->nhits[i]; j++) {
				const struct reis_hit *h = &r->hits[i * k + j];
				PyObject *b = PyBytes_FromStringAndSize(
					h->doc ? (const char *)h->doc : "", h->doc ? h->doc_len : 0);

				if (!b)
					Py_CLEAR(l);
				else
					PyList_SET_ITEM(l, j, b);
			}
			if (!l) {
				Py_CLEAR(a);
				break;
			}
			PyList_SET_ITEM(a, i, l);
		}
		return a;
	}
	a = new_array(2, nq, k, which == SR_DIST ? NPY_INT32 : NPY_INT64);
	if (!a)
		return NULL;
	for (i = 0; i < nq * k; i++) {
		const struct reis_hit *h = &r->hits[i];
		int none = h->id == REIS_HIT_NONE;

		switch (which) {
		case SR_IDS:
			((int64_t *)PyArray_DATA((PyArrayObject *)a))[i] =
				none ? -1 : (int64_t)h->id;
			break;
		case SR_DIST:
			((int32_t *)PyArray_DATA((PyArrayObject *)a))[i] =
				none ? INT32_MAX : (int32_t)h->hamming;
			break;
		case SR_SCORES:
			((int64_t *)PyArray_DATA((PyArrayObject *)a))[i] = none ? 0 : h->score;
			break;
		default:
			((int64_t *)PyArray_DATA((PyArrayObject *)a))[i] =
				none ? -1 : (int64_t)h->entry;
			break;
		}
	}
	return a;
}

static PyObject *SearchResult_get(SearchResult *o, void *which)
{
	int w = (int)(intptr_t)which;

	if (!o->cache[w])
		o->cache[w] = sr_make(o, w);
	Py_XINCREF(o->cache[w]);
	return o->cache[w];
}

enum { SRC_TIME, SRC_ENERGY, SRC_SEARCH_NS, SRC_SEARCH_NJ, SRC_READ_NS, SRC_READ_NJ,
       SRC_HOST, SRC_PAGES, SRC_COMPARED, SRC_PASSED, SRC_RERANKED, SRC_NPROBE, SRC_NCMDS,
       SRC_NQ, SRC_K };

static PyObject *SearchResult_num(SearchResult *o, void *which)
{
	const struct reis_search_result *r = &o->r;
	uint64_t v;

	switch ((int)(intptr_t)which) {
	case SRC_TIME: v = r->search_ns + r->read_ns; break;
	case SRC_ENERGY: v = r->search_nj + r->read_nj; break;
	case SRC_SEARCH_NS: v = r->search_ns; break;
	case SRC_SEARCH_NJ: v = r->search_nj; break;
	case SRC_READ_NS: v = r->read_ns; break;
	case SRC_READ_NJ: v = r->read_nj; break;
	case SRC_HOST: v = r->host_ns; break;
	case SRC_PAGES: v = r->pages_read; break;
	case SRC_COMPARED: v = r->entries_compared; break;
	case SRC_PASSED: v = r->entries_passed; break;
	case SRC_RERANKED: v = r->reranked; break;
	case SRC_NPROBE: v = r->nprobe; break;
	case SRC_NCMDS: v = r->ncmds; break;
	case SRC_NQ: v = r->nq; break;
	default: v = r->k; break;
	}
	return PyLong_FromUnsignedLongLong(v);
}

static PyObject *SearchResult_repr(SearchResult *o)
{
	return PyUnicode_FromFormat("<reis.SearchResult nq=%u k=%u time_ns=%llu energy_nj=%llu>",
				    o->r.nq, o->r.k,
				    (unsigned long long)(o->r.search_ns + o->r.read_ns),
				    (unsigned long long)(o->r.search_nj + o->r.read_nj));
}

#define SRG(n, w, doc) { n, (getter)SearchResult_get, NULL, doc, (void *)(intptr_t)(w) }
#define SRN(n, w, doc) { n, (getter)SearchResult_num, NULL, doc, (void *)(intptr_t)(w) }
static PyGetSetDef SearchResult_getset[] = {
	SRG("ids", SR_IDS, "int64 (nq, k): caller ids or entry numbers, best first; -1 pads"),
	SRG("distances", SR_DIST, "int32 (nq, k): Hamming distances; 2**31-1 pads"),
	SRG("scores", SR_SCORES, "int64 (nq, k): INT8 rerank scores (ip: higher is better, "
	    "l2: lower); 0 without rerank and for padding"),
	SRG("entries", SR_ENTRIES, "int64 (nq, k): entry index in the database (IVF: in "
	    "cluster order), what DOC_READ takes; -1 pads"),
	SRG("nhits", SR_NHITS, "int32 (nq,): hits before padding"),
	SRG("docs", SR_DOCS, "list (per query) of lists of bytes with docs=True, else None"),
	SRN("time_ns", SRC_TIME, "modeled drive time of the call: search plus result reads"),
	SRN("energy_nj", SRC_ENERGY, "modeled drive energy of the call"),
	SRN("search_ns", SRC_SEARCH_NS, "modeled time of the SEARCH commands"),
	SRN("search_nj", SRC_SEARCH_NJ, "modeled energy of the SEARCH commands"),
	SRN("read_ns", SRC_READ_NS, "modeled time of the result reads"),
	SRN("read_nj", SRC_READ_NJ, "modeled energy of the result reads"),
	SRN("host_ns", SRC_HOST, "host wall time of the call in libreis"),
	SRN("pages_read", SRC_PAGES, "embedding and centroid pages sensed"),
	SRN("entries_compared", SRC_COMPARED, "distances computed in the dies"),
	SRN("entries_passed", SRC_PASSED, "entries that crossed the channel (after DF)"),
	SRN("reranked", SRC_RERANKED, "INT8 candidates rescored"),
	SRN("nprobe", SRC_NPROBE, "IVF clusters probed per query"),
	SRN("ncmds", SRC_NCMDS, "commands the call took"),
	SRN("nq", SRC_NQ, "queries"),
	SRN("k", SRC_K, "hits per query"),
	{ NULL, NULL, NULL, NULL, NULL } };

static PyTypeObject SearchResultType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "reis._reis.SearchResult",
	.tp_basicsize = sizeof(SearchResult),
	.tp_dealloc = (destructor)SearchResult_dealloc,
	.tp_repr = (reprfunc)SearchResult_repr,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "The hits and the modeled cost of one search call (Drive.search, "
		  "Image.ref_search).",
	.tp_getset = SearchResult_getset,
};

static PyObject *Drive_search(Drive *d, PyObject *const *args, Py_ssize_t nargs,
			      PyObject *kwnames)
{
	struct reis_search_result r;
	struct dbent *e;
	struct sargs s;
	PyObject *res = NULL;
	int ret;

	if (sargs_parse(&s, args, nargs, kwnames, 1) || dev_open(d)) {
		sargs_free(&s);
		return NULL;
	}
	dev_lock(d);
	e = db_entry(d, s.o.did, s.x != NULL);
	if (!e || sargs_queries(&s, e->dim, !!(e->flags & REIS_DBF_INT8),
				e->quant == 1 ? &e->q : NULL))
		goto out;
	if (s.ivf < 0)
		s.ivf = e->kind == REIS_DB_IVF;
	Py_BEGIN_ALLOW_THREADS
	ret = s.ivf ? reis_ivf_search(d->dev, &s.o, &s.q, &r) : reis_search(d->dev, &s.o, &s.q, &r);
	Py_END_ALLOW_THREADS
	if (ret) {
		raise_err(d->dev, ret, NULL);
		goto out;
	}
	res = search_result(&r, s.docs, NULL);
out:
	dev_unlock(d);
	sargs_free(&s);
	return res;
}

static PyObject *Image_ref_search(Image *im, PyObject *const *args, Py_ssize_t nargs,
				  PyObject *kwnames)
{
	const struct reis_db_image *dbs[1] = { &im->img };
	struct reis_search_result r;
	struct sargs s;
	PyObject *res = NULL;
	int ret;

	if (sargs_parse(&s, args, nargs, kwnames, 0))
		goto out;
	s.o.did = im->img.did;
	if (sargs_queries(&s, im->img.dim, im->img.int8 != NULL, im->img.quant))
		goto out;
	if (s.ivf < 0)
		s.ivf = im->img.kind == REIS_DB_IVF;
	Py_BEGIN_ALLOW_THREADS
	ret = reis_ref_search(dbs, 1, s.ivf, &s.o, &s.q, &r);
	Py_END_ALLOW_THREADS
	if (ret) {
		raise_err(NULL, ret, "reference search: the options or queries do not fit the "
			  "image");
		goto out;
	}
	res = search_result(&r, s.docs, (PyObject *)im);
out:
	sargs_free(&s);
	return res;
}

/* The binary and INT8 codes of float queries, with @quant. */
static PyObject *encode(const struct reis_quant *quant, PyObject *xo)
{
	struct reis_queries q;
	PyArrayObject *x;
	PyObject *b, *i;
	npy_intp nq;
	int ret;

	if (!quant) {
		PyErr_SetString(PyExc_ValueError, "no quantizer to encode with");
		return NULL;
	}
	x = as_array(xo, NPY_FLOAT32, 2, "x", 0);
	if (!x || rows_of(x, quant->dim, "x", &nq)) {
		Py_XDECREF(x);
		return NULL;
	}
	ret = reis_encode_queries(quant, PyArray_DATA(x), (uint32_t)nq, &q);
	Py_DECREF(x);
	if (ret)
		return raise_err(NULL, ret, "encoding failed");
	b = new_array(2, nq, quant->dim / 8, NPY_UINT8);
	i = new_array(2, nq, quant->dim, NPY_INT8);
	if (b && i) {
		memcpy(PyArray_DATA((PyArrayObject *)b), q.bin, (size_t)nq * quant->dim / 8);
		memcpy(PyArray_DATA((PyArrayObject *)i), q.int8, (size_t)nq * quant->dim);
	}
	reis_queries_free(&q);
	if (!b || !i) {
		Py_XDECREF(b);
		Py_XDECREF(i);
		return NULL;
	}
	return Py_BuildValue("(NN)", b, i);
}

static PyObject *Image_encode(Image *im, PyObject *x)
{
	return encode(im->img.quant, x);
}

static PyObject *Drive_encode(Drive *d, PyObject *args)
{
	unsigned did;
	PyObject *x, *r = NULL;
	struct dbent *e;

	if (!PyArg_ParseTuple(args, "IO", &did, &x) || dev_open(d))
		return NULL;
	dev_lock(d);
	e = db_entry(d, did, 1);
	if (e)
		r = encode(e->quant == 1 ? &e->q : NULL, x);
	dev_unlock(d);
	return r;
}

/* Deploy @im as did (@did, or the image's): the stats before and after
 * give its modeled cost. */
static PyObject *Drive_deploy_image(Drive *d, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "image", "did", "store_quantizer", NULL };
	struct reis_stats s0, s1;
	struct reis_deploy_opts o;
	struct reis_db_info info;
	unsigned did = 0;
	int meta = 1, ret, r0;
	uint32_t keep;
	Image *im;
	PyObject *res = NULL;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O!|I$p", kwlist, &ImageType, &im, &did,
					 &meta) || dev_open(d))
		return NULL;
	memset(&o, 0, sizeof(o));
	o.flags = meta ? 0 : REIS_DEPLOY_NO_META;
	keep = im->img.did;
	if (did)
		im->img.did = did;
	did = im->img.did;
	dev_lock(d);
	forget_db(d, did);
	Py_BEGIN_ALLOW_THREADS
	r0 = reis_stats(d->dev, 0, &s0);
	ret = reis_db_deploy(d->dev, &im->img, &o);
	if (!ret && !r0)
		r0 = reis_stats(d->dev, 0, &s1);
	if (!ret)
		ret = reis_db_info(d->dev, did, &info);
	Py_END_ALLOW_THREADS
	im->img.did = keep;
	if (ret) {
		raise_err(d->dev, ret, NULL);
		goto out;
	}
	res = dbinfo_dict(&info);
	if (res && !r0 &&
	    (dset(res, "time_ns", u64obj(s1.model_ns - s0.model_ns)) ||
	     dset(res, "energy_nj", u64obj((s1.energy_pj - s0.energy_pj) / 1000)) ||
	     dset(res, "bytes", u64obj(s1.link_bytes_h2c - s0.link_bytes_h2c))))
		Py_CLEAR(res);
	/* Queries can be encoded without reading META back. */
	if (res && im->img.quant) {
		struct dbent *e = db_entry(d, did, 0);

		if (!e)
			Py_CLEAR(res);
		else if (!quant_copy(&e->q, im->img.quant))
			e->quant = 1;
	}
out:
	dev_unlock(d);
	return res;
}

/* ---------------------------------------------------------------------- */
/* RecFlash                                                                */
/* ---------------------------------------------------------------------- */

static PyObject *rfstats_dict(const struct reis_rf_stats *s)
{
	PyObject *r = PyDict_New();

	if (!r)
		return NULL;
	if (DSET_U(r, s, tid) || DSET_U(r, s, rows) || DSET_U(r, s, dim) || DSET_U(r, s, dtype) ||
	    DSET_U(r, s, mode) || DSET_U(r, s, flags) || DSET_U(r, s, trigger) ||
	    DSET_U(r, s, hot_bp) || DSET_U(r, s, trigger_ppm) || DSET_U(r, s, period) ||
	    DSET_S(r, s, name) || dset(r, "ready", PyBool_FromLong(s->state == REIS_RF_READY)) ||
	    DSET_U(r, s, remap_state) || DSET_U(r, s, generation) ||
	    DSET_U(r, s, rows_per_page) || DSET_U(r, s, pages) || DSET_U(r, s, dram_bytes) ||
	    DSET_U(r, s, sls_bags) || DSET_U(r, s, lookups) || DSET_U(r, s, page_reads) ||
	    DSET_U(r, s, cache_hits) || DSET_U(r, s, cache_misses) ||
	    DSET_U(r, s, bytes_sensed) || DSET_U(r, s, bytes_useful) ||
	    DSET_U(r, s, bytes_out) || DSET_U(r, s, model_ns) || DSET_U(r, s, energy_pj) ||
	    DSET_U(r, s, tracked_keys) || DSET_U(r, s, remaps) ||
	    DSET_U(r, s, remap_rows_moved) || DSET_U(r, s, remap_ns) ||
	    dset(r, "utilisation", PyFloat_FromDouble(s->utilisation)) ||
	    dset(r, "hit_rate", PyFloat_FromDouble(s->hit_rate))) {
		Py_DECREF(r);
		return NULL;
	}
	return r;
}

/* Float rows (rows, dim) as the wire rows of @dtype: a new uint8 array. */
static PyArrayObject *rf_wire(PyObject *table, uint32_t dtype, uint32_t *rows, uint32_t *dim)
{
	PyArrayObject *x = as_array(table, NPY_FLOAT32, 2, "table", 0), *w;
	int rb, ret;

	if (!x)
		return NULL;
	if (PyArray_NDIM(x) != 2 || PyArray_DIM(x, 0) < 1 || PyArray_DIM(x, 0) > UINT32_MAX ||
	    PyArray_DIM(x, 1) < 1 || PyArray_DIM(x, 1) > REIS_RF_MAX_DIM) {
		PyErr_Format(PyExc_ValueError, "table must be (rows, dim) with 1 <= dim <= %u",
			     REIS_RF_MAX_DIM);
		Py_DECREF(x);
		return NULL;
	}
	*rows = (uint32_t)PyArray_DIM(x, 0);
	*dim = (uint32_t)PyArray_DIM(x, 1);
	rb = reis_rf_row_bytes(dtype, *dim);
	if (rb < 0) {
		Py_DECREF(x);
		PyErr_SetString(PyExc_ValueError, "dtype: fp32, fp16 or int8");
		return NULL;
	}
	w = (PyArrayObject *)new_array(2, *rows, rb, NPY_UINT8);
	if (!w) {
		Py_DECREF(x);
		return NULL;
	}
	ret = reis_rf_quantize(dtype, *rows, *dim, PyArray_DATA(x), PyArray_DATA(w));
	Py_DECREF(x);
	if (ret) {
		Py_DECREF(w);
		return (PyArrayObject *)raise_err(NULL, ret, ret == -EDOM ?
						  "table holds a non-finite value" :
						  "quantizing the table failed");
	}
	return w;
}

static PyObject *mod_rf_quantize(PyObject *m, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "table", "dtype", NULL };
	PyObject *t, *dt = NULL;
	uint32_t dtype, rows, dim;

	(void)m;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O", kwlist, &t, &dt) ||
	    pick(dt, rf_dtypes, "dtype", REIS_RF_FP32, &dtype))
		return NULL;
	return (PyObject *)rf_wire(t, dtype, &rows, &dim);
}

static PyObject *Drive_rf_deploy(Drive *d, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "tid", "table", "dtype", "mode", "name", "profile", "trigger",
				  "hot_bp", "trigger_ppm", "period", "wire_dim", NULL };
	PyObject *to, *dt = NULL, *mo = NULL, *po = NULL, *tr = NULL, *res = NULL, *dimo;
	unsigned tid, hot = 0, ppm = 0, period = 0, wire_dim = 0;
	struct reis_rf_deploy_opts o;
	struct reis_rf_table t;
	PyArrayObject *w = NULL, *prof = NULL;
	const char *name = NULL;
	int ret;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "IO|$OOzOOIIII", kwlist, &tid, &to, &dt, &mo,
					 &name, &po, &tr, &hot, &ppm, &period, &wire_dim) ||
	    dev_open(d))
		return NULL;
	memset(&t, 0, sizeof(t));
	if (pick(dt, rf_dtypes, "dtype", REIS_RF_FP32, &t.dtype) ||
	    pick(mo, rf_modes, "mode", REIS_RF_RECFLASH, &t.mode) ||
	    pick(tr, rf_triggers, "trigger", REIS_RF_TRIG_NONE, &t.trigger))
		return NULL;
	if (wire_dim) {
		int rb = reis_rf_row_bytes(t.dtype, wire_dim);

		w = as_array(to, NPY_UINT8, 2, "table", 0);
		if (!w)
			return NULL;
		if (rb < 0 || PyArray_NDIM(w) != 2 || PyArray_DIM(w, 1) != rb) {
			PyErr_Format(PyExc_ValueError, "wire rows of dim %u are %d bytes each",
				     wire_dim, rb);
			goto out;
		}
		t.rows = (uint32_t)PyArray_DIM(w, 0);
		t.dim = wire_dim;
	} else {
		w = rf_wire(to, t.dtype, &t.rows, &t.dim);
		if (!w)
			return NULL;
	}
	if (po && po != Py_None) {
		prof = as_array(po, NPY_UINT32, 1, "profile", 0);
		if (!prof || len_of(prof, t.rows, "profile"))
			goto out;
		t.profile = PyArray_DATA(prof);
	}
	t.tid = tid;
	t.name = name;
	t.data = PyArray_DATA(w);
	t.hot_bp = hot;
	t.trigger_ppm = ppm;
	t.period = period;
	memset(&o, 0, sizeof(o));
	DEV_CALL(d, ret = reis_rf_deploy(d->dev, &t, &o));
	if (ret) {
		raise_err(d->dev, ret, NULL);
		dev_unlock(d);
		goto out;
	}
	{
		PyObject *k = PyLong_FromUnsignedLong(tid);

		dimo = PyLong_FromUnsignedLong(t.dim);
		ret = k && dimo ? PyDict_SetItem(d->tables, k, dimo) : -1;
		Py_XDECREF(k);
		Py_XDECREF(dimo);
		if (ret < 0) {
			dev_unlock(d);
			goto out;
		}
	}
	dev_unlock(d);
	res = Py_BuildValue("{s:I,s:I,s:I,s:K,s:K,s:K,s:I}", "tid", tid, "rows", t.rows, "dim",
			    t.dim, "time_ns", (unsigned long long)o.time_ns, "energy_nj",
			    (unsigned long long)o.energy_nj, "bytes", (unsigned long long)o.bytes,
			    "ncmds", o.ncmds);
out:
	Py_XDECREF(w);
	Py_XDECREF(prof);
	return res;
}

static PyObject *Drive_rf_stats(Drive *d, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "tid", "reset", NULL };
	struct reis_rf_stats st;
	unsigned tid;
	int reset = 0, ret;
	PyObject *r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "I|$p", kwlist, &tid, &reset) || dev_open(d))
		return NULL;
	DEV_CALL(d, ret = reis_rf_table_stats(d->dev, tid, reset ? REIS_RF_STATS_RESET : 0, &st));
	r = ret ? raise_err(d->dev, ret, NULL) : rfstats_dict(&st);
	dev_unlock(d);
	return r;
}

static int rf_list(struct reis_dev *dev, void *out, unsigned max)
{
	return reis_rf_list(dev, out, max);
}

static PyObject *rf_dict(const void *e)
{
	return rfstats_dict(e);
}

static PyObject *Drive_rf_tables(Drive *d, PyObject *unused)
{
	static const struct catalog c = { sizeof(struct reis_rf_stats), rf_list, rf_dict };

	(void)unused;
	return catalog(d, &c);
}

static PyObject *Drive_rf_delete(Drive *d, PyObject *arg)
{
	return id_call(d, arg, reis_rf_delete, d->tables);
}

/* The bags of an SLS: indices, offsets (nbags + 1, or EmbeddingBag's
 * nbags starts), optional weights. Arrays stay in @keep[0..2]. */
static int bags_arg(PyObject *io, PyObject *oo, PyObject *wo, struct reis_rf_bags *b,
		    PyArrayObject **keep, uint32_t **own_off)
{
	PyArrayObject *idx, *off, *w = NULL;
	npy_intp n, no;

	*own_off = NULL;
	keep[0] = keep[1] = keep[2] = NULL;
	idx = as_array(io, NPY_UINT32, 1, "indices", 0);
	if (!idx)
		return -1;
	keep[0] = idx;
	off = as_array(oo, NPY_UINT32, 1, "offsets", 0);
	if (!off)
		return -1;
	keep[1] = off;
	if (len_of(idx, -1, "indices") || len_of(off, -1, "offsets"))
		return -1;
	n = PyArray_DIM(idx, 0);
	no = PyArray_DIM(off, 0);
	if (n > UINT32_MAX || no < 1) {
		PyErr_SetString(PyExc_ValueError, "offsets must name at least one bag");
		return -1;
	}
	memset(b, 0, sizeof(*b));
	b->nidx = (uint32_t)n;
	b->indices = PyArray_DATA(idx);
	if (((const uint32_t *)PyArray_DATA(off))[no - 1] == (uint32_t)n && no > 1) {
		b->nbags = (uint32_t)no - 1;
		b->offsets = PyArray_DATA(off);
	} else {
		/* torch.nn.EmbeddingBag's form: the starts only */
		*own_off = malloc(((size_t)no + 1) * sizeof(uint32_t));
		if (!*own_off) {
			PyErr_NoMemory();
			return -1;
		}
		memcpy(*own_off, PyArray_DATA(off), (size_t)no * sizeof(uint32_t));
		(*own_off)[no] = (uint32_t)n;
		b->nbags = (uint32_t)no;
		b->offsets = *own_off;
	}
	if (wo && wo != Py_None) {
		w = as_array(wo, NPY_FLOAT32, 1, "weights", 0);
		if (!w)
			return -1;
		keep[2] = w;
		if (len_of(w, n, "weights"))
			return -1;
		b->weights = PyArray_DATA(w);
	}
	return 0;
}

static PyStructSequence_Field sls_fields[] = {
	{ "out", "float32 (nbags, dim): the pooled vectors" },
	{ "time_ns", "modeled drive time of every command of the call" },
	{ "energy_nj", "modeled drive energy of the SLS commands" },
	{ "flash_ns", "modeled embedding stage in the flash" },
	{ "host_ns", "host wall time of the call in libreis" },
	{ "lookups", "indices looked up" },
	{ "page_reads", "pages sensed" },
	{ "cache_hits", "controller page-cache hits" },
	{ "cache_misses", "controller page-cache misses" },
	{ "bytes_out", "bytes read out over the channel" },
	{ "ncmds", "SLS commands the batch took" },
	{ NULL, NULL } };

static PyStructSequence_Desc sls_desc = {
	"reis.SLSResult", "The pooled vectors and the modeled cost of one SLS call.", sls_fields,
	11 };

static PyObject *Drive_rf_sls(Drive *d, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "tid", "indices", "offsets", "weights", "mean", "cache",
				  "dim", NULL };
	PyObject *io, *oo, *wo = NULL, *dimo, *res = NULL, *out = NULL;
	unsigned tid, dim = 0;
	int mean = 0, cache = 1, ret, i;
	struct reis_rf_sls_info info;
	struct reis_rf_bags b;
	PyArrayObject *keep[3];
	uint32_t *own_off, flags;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "IOO|O$ppI", kwlist, &tid, &io, &oo, &wo,
					 &mean, &cache, &dim) || dev_open(d))
		return NULL;
	if (bags_arg(io, oo, wo, &b, keep, &own_off))
		goto out;
	flags = (b.weights ? REIS_RF_SLS_WEIGHTED : 0) | (mean ? REIS_RF_SLS_MEAN : 0) |
		(cache ? 0 : REIS_RF_SLS_NO_CACHE);
	dev_lock(d);
	if (!dim) {
		PyObject *k = PyLong_FromUnsignedLong(tid);

		dimo = k ? PyDict_GetItemWithError(d->tables, k) : NULL;
		if (dimo) {
			dim = (unsigned)PyLong_AsUnsignedLong(dimo);
		} else if (!PyErr_Occurred()) {
			struct reis_rf_stats st;

			Py_BEGIN_ALLOW_THREADS
			ret = reis_rf_table_stats(d->dev, tid, 0, &st);
			Py_END_ALLOW_THREADS
			if (ret) {
				raise_err(d->dev, ret, NULL);
			} else {
				PyObject *v = PyLong_FromUnsignedLong(st.dim);

				dim = st.dim;
				if (!v || PyDict_SetItem(d->tables, k, v) < 0)
					dim = 0;
				Py_XDECREF(v);
			}
		}
		Py_XDECREF(k);
		if (!dim) {
			dev_unlock(d);
			goto out;
		}
	}
	out = new_array(2, b.nbags, dim, NPY_FLOAT32);
	if (!out) {
		dev_unlock(d);
		goto out;
	}
	Py_BEGIN_ALLOW_THREADS
	ret = reis_rf_sls(d->dev, tid, dim, &b, flags, PyArray_DATA((PyArrayObject *)out), &info);
	Py_END_ALLOW_THREADS
	if (ret) {
		raise_err(d->dev, ret, NULL);
		dev_unlock(d);
		goto out;
	}
	dev_unlock(d);
	res = PyStructSequence_New(&SLSResultType);
	if (!res)
		goto out;
	PyStructSequence_SET_ITEM(res, 0, out);
	out = NULL;
	PyStructSequence_SET_ITEM(res, 1, u64obj(info.cmd_ns));
	PyStructSequence_SET_ITEM(res, 2, u64obj(info.energy_pj / 1000));
	PyStructSequence_SET_ITEM(res, 3, u64obj(info.flash_ns));
	PyStructSequence_SET_ITEM(res, 4, u64obj(info.host_ns));
	PyStructSequence_SET_ITEM(res, 5, u64obj(info.lookups));
	PyStructSequence_SET_ITEM(res, 6, u64obj(info.page_reads));
	PyStructSequence_SET_ITEM(res, 7, u64obj(info.cache_hits));
	PyStructSequence_SET_ITEM(res, 8, u64obj(info.cache_misses));
	PyStructSequence_SET_ITEM(res, 9, u64obj(info.bytes_out));
	PyStructSequence_SET_ITEM(res, 10, u64obj(info.ncmds));
	for (i = 1; i < 11; i++)
		if (!PyStructSequence_GET_ITEM(res, i))
			Py_CLEAR(res);
out:
	free(own_off);
	Py_XDECREF(out);
	for (i = 0; i < 3; i++)
		Py_XDECREF(keep[i]);
	return res;
}

static PyObject *mod_rf_sls_ref(PyObject *m, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "wire", "dim", "indices", "offsets", "weights", "dtype", "mean",
				  NULL };
	PyObject *wo, *io, *oo, *wgt = NULL, *dt = NULL, *out = NULL;
	PyArrayObject *w = NULL, *keep[3] = { NULL, NULL, NULL };
	struct reis_rf_bags b;
	uint32_t dtype, *own_off = NULL;
	unsigned dim;
	int mean = 0, ret, rb, i;

	(void)m;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "OIOO|O$Op", kwlist, &wo, &dim, &io, &oo, &wgt,
					 &dt, &mean) ||
	    pick(dt, rf_dtypes, "dtype", REIS_RF_FP32, &dtype))
		return NULL;
	rb = reis_rf_row_bytes(dtype, dim);
	w = as_array(wo, NPY_UINT8, 2, "wire", 0);
	if (!w)
		return NULL;
	if (rb < 0 || PyArray_NDIM(w) != 2 || PyArray_DIM(w, 1) != rb) {
		PyErr_Format(PyExc_ValueError, "wire rows of dim %u are %d bytes each", dim, rb);
		goto out;
	}
	if (bags_arg(io, oo, wgt, &b, keep, &own_off))
		goto out;
	out = new_array(2, b.nbags, dim, NPY_FLOAT32);
	if (!out)
		goto out;
	ret = reis_rf_sls_ref(dtype, (uint32_t)PyArray_DIM(w, 0), dim, PyArray_DATA(w), &b,
			      (b.weights ? REIS_RF_SLS_WEIGHTED : 0) | (mean ? REIS_RF_SLS_MEAN : 0),
			      PyArray_DATA((PyArrayObject *)out));
	if (ret) {
		Py_CLEAR(out);
		raise_err(NULL, ret, "bags out of range or malformed");
	}
out:
	free(own_off);
	Py_XDECREF(w);
	for (i = 0; i < 3; i++)
		Py_XDECREF(keep[i]);
	return out;
}

static PyObject *Drive_rf_remap(Drive *d, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "tid", "adaptive", "switch", "if_triggered", NULL };
	struct reis_rf_remap_info info;
	unsigned tid;
	int adaptive = 1, sw = 1, trig = 0, ret;
	uint32_t flags;
	PyObject *r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "I|$ppp", kwlist, &tid, &adaptive, &sw, &trig) ||
	    dev_open(d))
		return NULL;
	flags = (adaptive ? REIS_RF_REMAP_ADAPTIVE : REIS_RF_REMAP_FULL) |
		(sw ? REIS_RF_REMAP_SWITCH : 0) | (trig ? REIS_RF_REMAP_IF_TRIGGERED : 0);
	DEV_CALL(d, ret = reis_rf_remap(d->dev, tid, flags, &info));
	r = ret ? raise_err(d->dev, ret, NULL) :
		  Py_BuildValue("{s:O,s:I,s:I,s:K,s:K,s:K,s:K,s:K,s:K}", "triggered",
				info.triggered ? Py_True : Py_False, "remap_state", info.remap_state,
				"generation", info.generation, "rows_moved",
				(unsigned long long)info.rows_moved, "page_reads",
				(unsigned long long)info.page_reads, "programs",
				(unsigned long long)info.programs, "erases",
				(unsigned long long)info.erases, "remap_ns",
				(unsigned long long)info.remap_ns, "time_ns",
				(unsigned long long)info.time_ns);
	dev_unlock(d);
	return r;
}

static PyObject *Drive_rf_switch(Drive *d, PyObject *arg)
{
	return id_call(d, arg, reis_rf_switch, NULL);
}

/* ---------------------------------------------------------------------- */
/* Benchmark support: the same C calls as Drive.search, looped in C         */
/* ---------------------------------------------------------------------- */

/*
 * Drive._c_search_loop(did, codes, int8, k, n, flags) - n searches of the
 * given codes made with the C API alone (the calls Drive.search makes,
 * without Python): the baseline python/bench_overhead.py subtracts.
 * Returns the elapsed nanoseconds (CLOCK_MONOTONIC).
 */
static PyObject *Drive_c_search_loop(Drive *d, PyObject *args)
{
	unsigned did, k, n, flags, i;
	PyObject *co, *io;
	PyArrayObject *bin = NULL, *i8 = NULL;
	struct reis_search_opts o;
	struct reis_queries q;
	struct timespec t0, t1;
	struct dbent *e;
	int ret = 0, ivf;
	npy_intp nq;

	if (!PyArg_ParseTuple(args, "IOOIII", &did, &co, &io, &k, &n, &flags) || dev_open(d))
		return NULL;
	dev_lock(d);
	e = db_entry(d, did, 0);
	if (!e)
		goto out;
	bin = as_array(co, NPY_UINT8, 2, "codes", 0);
	i8 = as_array(io, NPY_INT8, 2, "int8", 1);
	if (!bin || rows_of(bin, e->dim / 8, "codes", &nq))
		goto out;
	memset(&o, 0, sizeof(o));
	o.did = did;
	o.k = k;
	o.flags = flags;
	q.nq = (uint32_t)nq;
	q.dim = e->dim;
	q.bin = PyArray_DATA(bin);
	q.int8 = i8 ? PyArray_DATA(i8) : NULL;
	ivf = e->kind == REIS_DB_IVF;
	Py_BEGIN_ALLOW_THREADS
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n && !ret; i++) {
		struct reis_search_result r;

		ret = ivf ? reis_ivf_search(d->dev, &o, &q, &r) : reis_search(d->dev, &o, &q, &r);
		if (!ret)
			reis_search_result_free(&r);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	Py_END_ALLOW_THREADS
	if (ret)
		raise_err(d->dev, ret, NULL);
out:
	dev_unlock(d);
	Py_XDECREF(bin);
	Py_XDECREF(i8);
	if (PyErr_Occurred())
		return NULL;
	return PyLong_FromLongLong((long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL +
				   (t1.tv_nsec - t0.tv_nsec));
}

/* ---------------------------------------------------------------------- */
/* Module functions                                                        */
/* ---------------------------------------------------------------------- */

static PyObject *mod_hamming_knn(PyObject *m, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "base", "queries", "k", NULL };
	PyObject *bo, *qo, *di = NULL, *ii = NULL;
	PyArrayObject *b = NULL, *q = NULL;
	npy_intp n, nq, bytes, i;
	uint32_t *ids = NULL, *dist = NULL;
	unsigned k;
	int ret;

	(void)m;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "OOI", kwlist, &bo, &qo, &k))
		return NULL;
	b = as_array(bo, NPY_UINT8, 2, "base", 0);
	q = as_array(qo, NPY_UINT8, 2, "queries", 0);
	if (!b || !q)
		goto out;
	if (PyArray_NDIM(b) != 2) {
		PyErr_SetString(PyExc_ValueError, "base must be (n, bytes)");
		goto out;
	}
	n = PyArray_DIM(b, 0);
	bytes = PyArray_DIM(b, 1);
	if (rows_of(q, bytes, "queries", &nq))
		goto out;
	ids = malloc((size_t)nq * k * 4 + 1);
	dist = malloc((size_t)nq * k * 4 + 1);
	if (!ids || !dist) {
		PyErr_NoMemory();
		goto out;
	}
	Py_BEGIN_ALLOW_THREADS
	ret = reis_hamming_knn(PyArray_DATA(b), (uint64_t)n, PyArray_DATA(q), (uint32_t)nq,
			       (uint32_t)bytes, k, ids, dist);
	Py_END_ALLOW_THREADS
	if (ret) {
		raise_err(NULL, ret, "hamming_knn: k must be 1..n and the codes non-empty");
		goto out;
	}
	di = new_array(2, nq, k, NPY_INT32);
	ii = new_array(2, nq, k, NPY_INT64);
	if (!di || !ii)
		goto out;
	for (i = 0; i < nq * (npy_intp)k; i++) {
		((int32_t *)PyArray_DATA((PyArrayObject *)di))[i] = (int32_t)dist[i];
		((int64_t *)PyArray_DATA((PyArrayObject *)ii))[i] = ids[i];
	}
out:
	free(ids);
	free(dist);
	Py_XDECREF(b);
	Py_XDECREF(q);
	if (PyErr_Occurred()) {
		Py_XDECREF(di);
		Py_XDECREF(ii);
		return NULL;
	}
	return Py_BuildValue("(NN)", di, ii);
}

static PyObject *mod_kmeans(PyObject *m, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "x", "nlist", "seed", "max_iter", "max_train_per_list", NULL };
	struct reis_kmeans_opts o;
	unsigned nlist, iters = 0, per = 0;
	unsigned long long seed = 0;
	PyArrayObject *x;
	PyObject *xo, *c = NULL, *a = NULL;
	int ret;

	(void)m;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "OI|$KII", kwlist, &xo, &nlist, &seed, &iters,
					 &per))
		return NULL;
	x = as_array(xo, NPY_FLOAT32, 2, "x", 0);
	if (!x)
		return NULL;
	if (PyArray_NDIM(x) != 2) {
		PyErr_SetString(PyExc_ValueError, "x must be (n, dim)");
		goto out;
	}
	memset(&o, 0, sizeof(o));
	o.nlist = nlist;
	o.seed = seed;
	o.max_iter = iters;
	o.max_train_per_list = per;
	c = new_array(2, nlist, PyArray_DIM(x, 1), NPY_FLOAT32);
	a = new_array(1, PyArray_DIM(x, 0), 0, NPY_UINT32);
	if (!c || !a)
		goto out;
	Py_BEGIN_ALLOW_THREADS
	ret = reis_kmeans(PyArray_DATA(x), (uint64_t)PyArray_DIM(x, 0), (uint32_t)PyArray_DIM(x, 1),
			  &o, PyArray_DATA((PyArrayObject *)c), PyArray_DATA((PyArrayObject *)a),
			  NULL);
	Py_END_ALLOW_THREADS
	if (ret)
		raise_err(NULL, ret, "kmeans: nlist must be 1..n");
out:
	Py_DECREF(x);
	if (PyErr_Occurred()) {
		Py_XDECREF(c);
		Py_XDECREF(a);
		return NULL;
	}
	return Py_BuildValue("(NN)", c, a);
}

static PyObject *mod_discover(PyObject *m, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "all", NULL };
	struct reis_disc *l;
	PyObject *r;
	int all = 0, n, i;

	(void)m;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "|p", kwlist, &all))
		return NULL;
	l = calloc(64, sizeof(*l));
	if (!l)
		return PyErr_NoMemory();
	Py_BEGIN_ALLOW_THREADS
	n = reis_discover(l, 64, all ? REIS_DISCOVER_ALL : 0);
	Py_END_ALLOW_THREADS
	if (n < 0) {
		free(l);
		return raise_err(NULL, n, "discovery failed");
	}
	if (n > 64)
		n = 64;
	r = PyList_New(n);
	for (i = 0; r && i < n; i++) {
		struct reis_disc *e = &l[i];
		PyObject *x = Py_BuildValue("{s:s,s:I,s:s,s:K,s:I,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:i,"
					    "s:s}", "path", e->path, "nsid", e->nsid, "version",
					    e->ver_major ? "1" : "", "caps",
					    (unsigned long long)e->caps, "max_xfer", e->max_xfer,
					    "preset", e->preset, "ctrl", e->ctrl, "subsysnqn",
					    e->subsysnqn, "transport", e->transport, "address",
					    e->address, "model", e->model, "serial", e->serial, "err",
					    e->err, "why", e->why);

		if (!x) {
			Py_CLEAR(r);
			break;
		}
		PyList_SET_ITEM(r, i, x);
	}
	free(l);
	return r;
}

static PyObject *mod_version(PyObject *m, PyObject *unused)
{
	(void)m;
	(void)unused;
	return PyUnicode_FromString(reis_version());
}

static PyObject *mod_strerror(PyObject *m, PyObject *arg)
{
	long e = PyLong_AsLong(arg);

	(void)m;
	if (PyErr_Occurred())
		return NULL;
	return PyUnicode_FromString(reis_strerror(e > 0 ? (int)-e : (int)e));
}

static PyObject *mod_status_str(PyObject *m, PyObject *arg)
{
	long s = PyLong_AsLong(arg);

	(void)m;
	if (PyErr_Occurred())
		return NULL;
	return PyUnicode_FromString(reis_status_str((uint16_t)s));
}

/* ---------------------------------------------------------------------- */
/* Types and module                                                        */
/* ---------------------------------------------------------------------- */

static PyMethodDef Drive_methods[] = {
	{ "close", (PyCFunction)Drive_close, METH_NOARGS, "Close the handle (idempotent)." },
	{ "__enter__", (PyCFunction)Drive_enter, METH_NOARGS, NULL },
	{ "__exit__", (PyCFunction)Drive_exit, METH_VARARGS, NULL },
	{ "info", (PyCFunction)Drive_info, METH_NOARGS, "ISP_IDENTIFY, as a dict." },
	{ "stats", (PyCFunction)(void (*)(void))Drive_stats, METH_VARARGS | METH_KEYWORDS,
	  "stats(reset=False): ISP_STATS, as a dict." },
	{ "noop", (PyCFunction)Drive_noop, METH_NOARGS,
	  "ISP_NOOP; returns its completion (modeled time, host round trip)." },
	{ "last_cpl", (PyCFunction)Drive_last_cpl, METH_NOARGS,
	  "The completion of the last synchronous call, as a dict." },
	{ "db_info", (PyCFunction)Drive_db_info, METH_O, "db_info(did): DB_INFO, as a dict." },
	{ "databases", (PyCFunction)Drive_databases, METH_NOARGS,
	  "The databases on the drive (DB_LIST)." },
	{ "delete", (PyCFunction)Drive_delete, METH_O, "delete(did): DB_DELETE." },
	{ "deploy_image", (PyCFunction)(void (*)(void))Drive_deploy_image,
	  METH_VARARGS | METH_KEYWORDS,
	  "deploy_image(image, did=0, *, store_quantizer=True): DB_CREATE, DB_WRITEs, "
	  "DB_COMMIT; returns DB_INFO with the modeled time and energy." },
	{ "encode", (PyCFunction)Drive_encode, METH_VARARGS,
	  "encode(did, x): (binary codes, int8 codes) of float queries with the database's "
	  "quantizer." },
	{ "search", (PyCFunction)(void (*)(void))Drive_search, METH_FASTCALL | METH_KEYWORDS,
	  "search(did, x=None, k=10, *, codes=None, int8=None, ivf=None, nprobe=0, "
	  "target_recall=0, rerank=True, rerank_factor=0, df_threshold=0, tag=None, docs=False, "
	  "flags=0) -> SearchResult" },
	{ "rf_deploy", (PyCFunction)(void (*)(void))Drive_rf_deploy, METH_VARARGS | METH_KEYWORDS,
	  "rf_deploy(tid, table, *, dtype='fp32', mode='recflash', name=None, profile=None, "
	  "trigger='none', hot_bp=0, trigger_ppm=0, period=0, wire_dim=0) -> dict" },
	{ "rf_sls", (PyCFunction)(void (*)(void))Drive_rf_sls, METH_VARARGS | METH_KEYWORDS,
	  "rf_sls(tid, indices, offsets, weights=None, *, mean=False, cache=True, dim=0) -> "
	  "SLSResult" },
	{ "rf_stats", (PyCFunction)(void (*)(void))Drive_rf_stats, METH_VARARGS | METH_KEYWORDS,
	  "rf_stats(tid, *, reset=False): TBL_STATS, as a dict." },
	{ "rf_tables", (PyCFunction)Drive_rf_tables, METH_NOARGS, "The embedding tables." },
	{ "rf_delete", (PyCFunction)Drive_rf_delete, METH_O, "rf_delete(tid)." },
	{ "rf_remap", (PyCFunction)(void (*)(void))Drive_rf_remap, METH_VARARGS | METH_KEYWORDS,
	  "rf_remap(tid, *, adaptive=True, switch=True, if_triggered=False) -> dict" },
	{ "rf_switch", (PyCFunction)Drive_rf_switch, METH_O, "rf_switch(tid)." },
	{ "_c_search_loop", (PyCFunction)Drive_c_search_loop, METH_VARARGS,
	  "Benchmark baseline: n searches through the C API alone; elapsed ns." },
	{ NULL, NULL, 0, NULL } };

static PyGetSetDef Drive_getset[] = {
	{ "path", (getter)Drive_get_path, NULL, "device path ('inproc' in-process)", NULL },
	{ "transport", (getter)Drive_get_transport, NULL, "io_uring, ioctl or inproc", NULL },
	{ "max_xfer", (getter)Drive_get_max_xfer, NULL, "bytes per command", NULL },
	{ "closed", (getter)Drive_get_closed, NULL, "whether close() was called", NULL },
	{ NULL, NULL, NULL, NULL, NULL } };

static PyTypeObject DriveType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "reis._reis.Drive",
	.tp_basicsize = sizeof(Drive),
	.tp_dealloc = (destructor)Drive_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = "Drive(path=None, *, inproc=False, backing=None, preset=None, params=None, "
		  "timing=None, qdepth=0, workers=0, max_xfer=0, trace_dir=None, ioctl=False, "
		  "force=False): an ISP drive through libreis.",
	.tp_weaklistoffset = offsetof(Drive, weakrefs),
	.tp_methods = Drive_methods,
	.tp_getset = Drive_getset,
	.tp_init = (initproc)Drive_init,
	.tp_new = Drive_new,
};

static PyMethodDef Image_methods[] = {
	{ "save", (PyCFunction)Image_save, METH_O, "save(path): write a REISIMG1 image file." },
	{ "encode", (PyCFunction)Image_encode, METH_O,
	  "encode(x): (binary codes, int8 codes) of float queries with the image's quantizer." },
	{ "ref_search", (PyCFunction)(void (*)(void))Image_ref_search,
	  METH_FASTCALL | METH_KEYWORDS,
	  "ref_search(x=None, k=10, ...): the drive's search computed on the host "
	  "(reis_ref_search); the same arguments and result as Drive.search." },
	{ NULL, NULL, 0, NULL } };

static PyGetSetDef Image_getset[] = {
	{ "did", (getter)Image_get_did, (setter)Image_set_did, "database id it deploys as",
	  NULL },
	{ "info", (getter)Image_get_info, NULL, "the image's header, as a dict", NULL },
	{ "codes", (getter)Image_get_codes, NULL, "binary codes in entry order (a copy)", NULL },
	{ "ids", (getter)Image_get_ids, NULL, "caller ids in entry order (a copy), or None",
	  NULL },
	{ "cluster_sizes", (getter)Image_get_cluster_sizes, NULL, "IVF cluster sizes, or None",
	  NULL },
	{ NULL, NULL, NULL, NULL, NULL } };

static PyTypeObject ImageType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "reis._reis.Image",
	.tp_basicsize = sizeof(Image),
	.tp_dealloc = (destructor)Image_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "A REIS database image on the host: reis.build(), reis.from_codes(), "
		  "reis.load().",
	.tp_methods = Image_methods,
	.tp_getset = Image_getset,
};

static PyMethodDef mod_methods[] = {
	{ "build", (PyCFunction)(void (*)(void))mod_build, METH_VARARGS | METH_KEYWORDS,
	  "build(x, *, did=1, kind='flat', metric='ip', nlist=0, int8=True, center=False, "
	  "docs=None, doc_offsets=None, ids=None, tags=None, name=None, df_threshold=0, "
	  "doc_mode=None, group=0, timestamp=0, calib_queries=None, calib_k=10, seed=0, "
	  "majority=False) -> Image (reis_db_build)" },
	{ "from_codes", (PyCFunction)(void (*)(void))mod_from_codes, METH_VARARGS | METH_KEYWORDS,
	  "from_codes(codes, *, did=1, int8=None, ids=None, tags=None, docs=None, "
	  "doc_offsets=None, kind='flat', metric='ip', centroids=None, cluster_sizes=None, "
	  "calib=None, name=None, df_threshold=0, doc_mode=None, group=0, timestamp=0) -> Image" },
	{ "load", (PyCFunction)mod_load, METH_O, "load(path) -> Image (an image file)" },
	{ "hamming_knn", (PyCFunction)(void (*)(void))mod_hamming_knn,
	  METH_VARARGS | METH_KEYWORDS,
	  "hamming_knn(base, queries, k) -> (D int32, I int64): exact binary k-NN, ties to the "
	  "lower index (reis_hamming_knn)" },
	{ "kmeans", (PyCFunction)(void (*)(void))mod_kmeans, METH_VARARGS | METH_KEYWORDS,
	  "kmeans(x, nlist, *, seed=0, max_iter=0, max_train_per_list=0) -> (centroids, "
	  "assignment) (reis_kmeans)" },
	{ "rf_quantize", (PyCFunction)(void (*)(void))mod_rf_quantize,
	  METH_VARARGS | METH_KEYWORDS,
	  "rf_quantize(table, dtype='fp32') -> uint8 wire rows (reis_rf_quantize)" },
	{ "rf_sls_ref", (PyCFunction)(void (*)(void))mod_rf_sls_ref, METH_VARARGS | METH_KEYWORDS,
	  "rf_sls_ref(wire, dim, indices, offsets, weights=None, *, dtype='fp32', mean=False): "
	  "the drive's SLS on the host (reis_rf_sls_ref)" },
	{ "discover", (PyCFunction)(void (*)(void))mod_discover, METH_VARARGS | METH_KEYWORDS,
	  "discover(all=False): the ISP drives of this machine (reis_discover)" },
	{ "version", mod_version, METH_NOARGS, "libreis' version" },
	{ "strerror", mod_strerror, METH_O, "strerror(errno): libreis' description" },
	{ "status_str", mod_status_str, METH_O, "status_str(status): an NVMe status field" },
	{ NULL, NULL, 0, NULL } };

static struct PyModuleDef moddef = { PyModuleDef_HEAD_INIT, "reis._reis",
				     "libreis for Python (python/README.md).", -1, mod_methods,
				     NULL, NULL, NULL, NULL };

PyMODINIT_FUNC PyInit__reis(void)
{
	PyObject *m;
	int i;

	import_array();
	if (PyType_Ready(&DriveType) < 0 || PyType_Ready(&ImageType) < 0 ||
	    PyType_Ready(&SearchResultType) < 0)
		return NULL;
	if (!SLSResultType.tp_name && PyStructSequence_InitType2(&SLSResultType, &sls_desc) < 0)
		return NULL;
	for (i = 0; i < SA_N; i++)
		if (!sa_interned[i] && !(sa_interned[i] = PyUnicode_InternFromString(sa_names[i])))
			return NULL;
	m = PyModule_Create(&moddef);
	if (!m)
		return NULL;
	ReisError = PyErr_NewExceptionWithDoc(
		"reis.Error", "A libreis failure: errno and strerror (the message), and when the "
		"drive failed a command: status, status_str, dnr, opcode, opcode_name, and from its "
		"error log entry reason, field, cmd_byte, data_byte, bit, error_count.",
		PyExc_OSError, NULL);
	if (!ReisError || PyModule_AddObjectRef(m, "Error", ReisError) < 0 ||
	    PyModule_AddObjectRef(m, "Drive", (PyObject *)&DriveType) < 0 ||
	    PyModule_AddObjectRef(m, "Image", (PyObject *)&ImageType) < 0 ||
	    PyModule_AddObjectRef(m, "SearchResult", (PyObject *)&SearchResultType) < 0 ||
	    PyModule_AddObjectRef(m, "SLSResult", (PyObject *)&SLSResultType) < 0) {
		Py_DECREF(m);
		return NULL;
	}
#define C(n) PyModule_AddIntConstant(m, #n, REIS_##n)
	if (C(SF_NO_DF) || C(SF_NO_PL) || C(SF_NO_MPIBC) || C(SF_NO_RERANK) || C(SF_TAG) ||
	    C(SF_DOCS) || C(MAX_K) || C(MAX_NQ) || C(DB_MIN_DIM) || C(DB_MAX_DIM) ||
	    C(SC_INVALID_FIELD) || C(SC_UNKNOWN_ID) || C(SC_ID_EXISTS) || C(SC_BUSY) ||
	    C(SC_DIM_MISMATCH) || C(SC_CAP_EXCEEDED) || C(STATUS_DNR) || C(STATUS_CODE_MASK) ||
	    C(RF_MAX_DIM) || C(OP_SEARCH) || C(OP_IVF_SEARCH) || C(OP_DB_CREATE) ||
	    C(OP_RF_SLS)) {
		Py_DECREF(m);
		return NULL;
	}
#undef C
	return m;
}
