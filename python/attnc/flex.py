"""FlexAttention-style authoring: Python mask and score functions, traced into
``attn`` regions and compiled ahead of time by attnc.

    from attnc import flex

    def document(b, h, q_idx, kv_idx):
        return (q_idx // 2048 == kv_idx // 2048) & (kv_idx <= q_idx)

    def softcap(score, b, h, q_idx, kv_idx):
        return 50 * flex.tanh(score / 50)

    attention = flex.attention(mask_mod=document, score_mod=softcap,
                               heads=(16, 4), head_dim=128, dtype="bf16",
                               target="sm_90a", device="cuda:0")
    out, lse = attention(q, k, v)        # torch tensors [B, H, N, D]

The functions are called once, on tracer values: ``b``, ``h``, ``q_idx`` and
``kv_idx`` are indices, ``score`` an f32. They may use Python arithmetic
(``+ - * / // % **`` with integer exponents, unary ``-``, ``abs``),
comparisons, ``& | ^ ~`` on booleans, ``flex.where``, ``flex.minimum`` and
``flex.maximum``, the math functions below, Python numbers, and, inside
torch code, the same torch functions (``torch.where``, ``torch.tanh``, ...).
flex's functions also take torch tensors (they call torch's), so one
function written with them serves both attnc and torch's flex_attention.
``//`` and ``%`` keep Python's (and torch's) floor semantics. Python control
flow on a traced value (``if``, ``and``, ``or``, ``not``) cannot be traced and
is an error that says so.

The functions may read torch tensors they close over, as FlexAttention's
do: a tensor indexed with traced values (and Python ints), one index per
dimension, becomes a captured tensor that the regions read
(``attn.attention ... captures(...)``, ``tensor.extract``):

    ids = torch.tensor(...)              # int32 document ids [B, N]

    def documents(b, h, q_idx, kv_idx):
        return (ids[b, q_idx] == ids[b, kv_idx]) & (kv_idx <= q_idx)

int32 and int64 elements are read as indices, float16, bfloat16 and float32
ones as f32 (rank 1 to 4); an index outside the tensor reads 0. Slices,
fewer indices than dimensions, and lists or tensors as indices are errors.
A tensor read by both functions, or twice, is one capture. Each captured
tensor becomes an argument of the compiled function after q, k and v, and
the callable passes the tensor object it traced on every call, so changes
made to it in place are seen (it must be on the callable's device). The
module records a capture's element type and rank only, not its shape or
values: the cached package serves any tensor of the same kind, so another
tensor of ids needs no compile (a build machine may trace with stand-ins).

The traced module (``attention.mlir``) is compiled with the attnc compiler
(``compiler=``, else ``$ATTNC_COMPILER``, else ``attnc`` on ``PATH``, else
the build of the repository this package lives in) into a package cached
on disk, keyed by the module text, the compiler (its version, and the size
and time of its file) and the compile flags (``cache_dir=``, else
``$ATTNC_CACHE_DIR``, else ``$XDG_CACHE_HOME/attnc`` or ``~/.cache/attnc``).
Without a compiler (or with ``compiler=False``), a cache filled elsewhere
serves: compile on a build machine, copy the cache directory to GPU nodes
that have only the runtime.

The callable runs the package function as its torch custom op
(``attention.op``, an ``attnc.TorchOp``; ``attnc.torch_ops``), made when
the callable is, so ``torch.compile(fullgraph=True)`` traces a call of it
without a graph break. The op's name comes from the package, so the same
mask, score and options give the same op in every process.
"""

import glob
import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile

from . import Error, Runtime, _capi, _dtype_name, torch_call

__all__ = ["Attention", "TraceError", "attention", "compile_attention",
           "trace_mask", "trace_score",
           "where", "minimum", "maximum", "exp", "exp2", "log", "log2", "tanh",
           "sqrt", "rsqrt", "sin", "cos", "atan", "erf", "floor", "ceil"]


class TraceError(Error):
    """A mask or score function that cannot become an attn region."""


_INDEX, _BOOL, _FLOAT = "index", "i1", "f32"
_INT_OPS = {"add": "arith.addi", "sub": "arith.subi", "mul": "arith.muli",
            "floordiv": "arith.floordivsi", "min": "arith.minsi",
            "max": "arith.maxsi"}
_FLOAT_OPS = {"add": "arith.addf", "sub": "arith.subf", "mul": "arith.mulf",
              "truediv": "arith.divf", "min": "arith.minimumf",
              "max": "arith.maximumf", "pow": "math.powf"}
_BOOL_OPS = {"and": "arith.andi", "or": "arith.ori", "xor": "arith.xori"}
_INT_PREDICATES = {"lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge",
                   "eq": "eq", "ne": "ne"}
_FLOAT_PREDICATES = {"lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge",
                     "eq": "oeq", "ne": "une"}
_UNARY_MATH = ("exp", "exp2", "log", "log2", "tanh", "sqrt", "rsqrt", "sin",
               "cos", "atan", "erf", "floor", "ceil")
#: Element types a captured tensor may have; integers are read as indices,
#: floats as f32.
_CAPTURE_INTEGERS, _CAPTURE_FLOATS = ("i32", "i64"), ("f16", "bf16", "f32")
_CAPTURE_RULE = ("index it with one traced value or non-negative Python int "
                 "per dimension, as in ids[b, q_idx]")


class _Captures:
    """The tensors that the traced functions of one attention read, in the
    order first read: one registry for its mask and its score, since every
    region takes all of them as arguments, and the same tensor (the same
    object) read twice is one capture."""

    def __init__(self):
        self.tensors, self.types = [], []

    def number(self, tensor):
        """The capture number of `tensor`, a new one if it is new."""
        for i, captured in enumerate(self.tensors):
            if captured is tensor:
                return i
        self.types.append(_tensor_type(*_capture_kind(tensor)))
        self.tensors.append(tensor)
        return len(self.tensors) - 1

    def arguments(self, first):
        """Block or function arguments of the captures, numbered from
        `first` (%a<first>...), with their types."""
        return [f"%a{first + i}: {t}" for i, t in enumerate(self.types)]


def _capture_kind(tensor):
    """The element type and rank of a captured tensor."""
    try:
        element = _dtype_name(tensor.dtype)
    except (AttributeError, ValueError):
        element = None
    if element not in _CAPTURE_INTEGERS + _CAPTURE_FLOATS:
        raise TraceError(
            f"a captured tensor must be int32, int64, float16, bfloat16 or "
            f"float32, not {getattr(tensor, 'dtype', type(tensor).__name__)}")
    rank = len(tensor.shape)
    if not 1 <= rank <= 4:
        raise TraceError(f"a captured tensor must have rank 1 to 4, not "
                         f"{rank}")
    return element, rank


def _tensor_type(element, rank):
    """The MLIR type of a captured tensor: every extent dynamic, since the
    package serves tensors of any shape."""
    return "tensor<" + "?x" * rank + element + ">"


def _index_kind(index):
    """What `index` is, for an error message."""
    if isinstance(index, _Value):
        return _describe(index.type)
    if index is Ellipsis:
        return "an ellipsis (...)"
    if index is None:
        return "None"
    if isinstance(index, bool):
        return "a bool"
    if isinstance(index, int):
        return "a negative int"
    name = type(index).__name__
    return f"an {name}" if name[:1].lower() in "aeiou" else f"a {name}"


def _read_capture(tensor, index):
    """tensor[index] in a traced function (torch hands a tensor's indexing
    by traced values to their __torch_function__): the element, read from
    the captured tensor with tensor.extract, as an index (integer tensors)
    or an f32 (float ones)."""
    indices = index if isinstance(index, tuple) else (index,)
    anchor = next((i for i in indices if isinstance(i, _Value)), None)
    if anchor is None:
        raise TraceError(f"a captured tensor needs a traced index: "
                         f"{_CAPTURE_RULE}")
    for i in indices:
        if not ((isinstance(i, _Value) and i.type == _INDEX) or (
                isinstance(i, int) and not isinstance(i, bool) and i >= 0)):
            raise TraceError(f"{_index_kind(i)} cannot index a captured "
                             f"tensor: {_CAPTURE_RULE}")
    element, rank = _capture_kind(tensor)
    if len(indices) != rank:
        raise TraceError(f"a captured tensor of rank {rank} takes {rank} "
                         f"indices, got {len(indices)}: {_CAPTURE_RULE}")
    names = ", ".join(anchor._operand(i).name for i in indices)
    region = anchor.region
    number = region.captures.number(tensor)
    read = region.emit(
        f"tensor.extract %a{len(region.args) + number}[{names}] : "
        f"{_tensor_type(element, rank)}", element)
    if element in _CAPTURE_INTEGERS:
        # An index: the tile classifier bounds the index_cast of a read.
        return region.emit(f"arith.index_cast {read.name} : {element} to "
                           "index", _INDEX)
    if element != _FLOAT:
        return region.emit(f"arith.extf {read.name} : {element} to f32",
                           _FLOAT)
    return read


class _Region:
    """The straight-line code of one region as it is traced; `captures` is
    the registry of the attention's captured tensors, whose block arguments
    follow the region's own."""

    def __init__(self, arg_types, captures):
        self.lines = []
        self.constants = {}
        self.count = 0
        self.captures = captures
        self.args = [_Value(self, f"%a{i}", t) for i, t in enumerate(arg_types)]

    def emit(self, text, result_type):
        name = f"%v{self.count}"
        self.count += 1
        self.lines.append(f"{name} = {text}")
        return _Value(self, name, result_type)

    def constant(self, value, type_):
        key = (repr(value), type_)
        if key not in self.constants:
            if type_ == _BOOL:
                literal = "true" if value else "false"
            elif type_ == _FLOAT:
                literal = _float_literal(value)
            else:
                literal = str(int(value))
            self.constants[key] = self.emit(
                f"arith.constant {literal} : {type_}", type_)
        return self.constants[key]


class _Value:
    """A traced value: an SSA name of its region and its type."""

    def __init__(self, region, name, type_):
        self.region, self.name, self.type = region, name, type_

    # -- conversions -----------------------------------------------------

    def _as(self, type_):
        if self.type == type_:
            return self
        if self.type == _BOOL and type_ == _INDEX:
            return where(self, 1, 0)
        if type_ == _FLOAT:
            integer = self
            if self.type == _BOOL:
                integer = self._as(_INDEX)
            wide = self.region.emit(
                f"arith.index_cast {integer.name} : index to i64", "i64")
            return self.region.emit(
                f"arith.sitofp {wide.name} : i64 to f32", _FLOAT)
        raise TraceError(f"cannot use a {_describe(self.type)} as "
                         f"{_describe(type_)}")

    def _operand(self, other, hint=None):
        """`other` as a value of this region: numbers become constants, an
        int one of `hint` when that is f32 (2 * score needs no cast)."""
        if isinstance(other, _Value):
            if other.region is not self.region:
                raise TraceError("a value of one traced function was used in "
                                 "another")
            return other
        if isinstance(other, bool):
            return self.region.constant(other, _BOOL)
        if isinstance(other, int):
            return self.region.constant(other, _FLOAT if hint == _FLOAT
                                        else _INDEX)
        if isinstance(other, float):
            return self.region.constant(other, _FLOAT)
        raise TraceError(_untraceable(other))

    def _binary(self, op, other, reverse=False):
        a, b = self, self._operand(other, self.type)
        if reverse:
            a, b = b, a
        if op == "truediv" or _FLOAT in (a.type, b.type):
            kind = _FLOAT
        elif op in _BOOL_OPS and a.type == b.type == _BOOL:
            kind = _BOOL
        else:
            kind = _INDEX
        a, b = a._as(kind), b._as(kind)
        table = {_FLOAT: _FLOAT_OPS, _INDEX: _INT_OPS, _BOOL: _BOOL_OPS}[kind]
        if op not in table:
            raise TraceError(f"'{op}' is not defined on {_describe(kind)}s")
        return self.region.emit(
            f"{table[op]} {a.name}, {b.name} : {kind}", kind)

    def _compare(self, op, other):
        b = self._operand(other, self.type)
        if _FLOAT in (self.type, b.type):
            a, b = self._as(_FLOAT), b._as(_FLOAT)
            return self.region.emit(f"arith.cmpf {_FLOAT_PREDICATES[op]}, "
                                    f"{a.name}, {b.name} : f32", _BOOL)
        kind = _BOOL if self.type == b.type == _BOOL else _INDEX
        a, b = self._as(kind), b._as(kind)
        return self.region.emit(f"arith.cmpi {_INT_PREDICATES[op]}, "
                                f"{a.name}, {b.name} : {kind}", _BOOL)

    def _mod(self, other, reverse):
        # Python's (and torch's) remainder takes the divisor's sign.
        a, b = self, self._operand(other)
        if reverse:
            a, b = b, a
        if _FLOAT in (a.type, b.type):
            return a - floor(a / b) * b
        return a - (a // b) * b

    __hash__ = object.__hash__

    def _floordiv(self, other, reverse):
        a, b = self, self._operand(other)
        if reverse:
            a, b = b, a
        if _FLOAT in (a.type, b.type):
            return floor(a / b)
        return a._binary("floordiv", b)

    def _logic(self, op, other):
        b = self._operand(other)
        if self.type != _BOOL or b.type != _BOOL:
            raise TraceError(f"'{op}' (&, |, ^) takes booleans here, not "
                             f"{_describe(self.type)} and {_describe(b.type)}")
        return self._binary(op, b)

    def __pow__(self, exponent):
        if isinstance(exponent, int) and not isinstance(exponent, bool) \
                and 0 <= exponent <= 16 and self.type == _INDEX:
            result = self.region.constant(1, _INDEX)
            for _ in range(exponent):
                result = result * self
            return result
        return self._as(_FLOAT)._binary("pow", exponent)

    def __rpow__(self, base):
        return self._operand(base, _FLOAT)._as(_FLOAT)._binary("pow", self)

    def __neg__(self):
        if self.type == _FLOAT:
            return self.region.emit(f"arith.negf {self.name} : f32", _FLOAT)
        return 0 - self

    def __invert__(self):
        if self.type != _BOOL:
            raise TraceError(f"~ takes a boolean, not {_describe(self.type)}")
        return self ^ True

    def __abs__(self):
        if self.type == _FLOAT:
            return self.region.emit(f"math.absf {self.name} : f32", _FLOAT)
        return self.region.emit(f"math.absi {self._as(_INDEX).name} : index",
                                _INDEX)

    def __bool__(self):
        raise TraceError(
            "a traced value has no Python truth value: `if`, `and`, `or`, "
            "`not` and chained comparisons (a < b < c) cannot be traced; use "
            "&, |, ~ and attnc.flex.where")

    def __index__(self):
        # torch hands tensor[traced, ...] to __torch_function__; whatever
        # asks for a Python integer instead is not a torch tensor.
        raise TraceError("a traced value cannot be used as a Python integer "
                         "(for indexing a tensor or a list): only a torch "
                         "tensor indexed with traced values, one per "
                         "dimension (ids[b, q_idx]), is read in the region")

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        name = getattr(func, "__name__", str(func))
        if name == "__getitem__" and not kwargs and len(args) == 2:
            return _read_capture(*args)  # a torch tensor[traced, ...]
        handler = _TORCH_FUNCTIONS.get(name)
        if handler is None or kwargs:
            raise TraceError(f"torch.{name} cannot be traced into a region")
        for arg in args:
            # A tensor with a traced value (tensor + q_idx) would come back
            # here through the handler's operator: say what is wrong.
            if not isinstance(arg, (_Value, bool, int, float)):
                raise TraceError(_untraceable(arg))
        return handler(*args)


def _untraceable(other):
    return (f"a {type(other).__name__} cannot be used in a traced function: "
            "only its arguments, Python numbers and booleans can, and "
            "elements of torch tensors indexed with traced values "
            "(ids[b, q_idx])")


def _float_literal(value):
    """An MLIR f32 literal: decimal with a point (MLIR reads 1e-05 as an
    integer), or the bit pattern of an infinity or NaN."""
    literal = repr(float(value))
    specials = {"inf": "0x7F800000", "-inf": "0xFF800000", "nan": "0x7FC00000"}
    if literal in specials:
        return specials[literal]
    return literal if "." in literal else f"{float(value):.17e}"


def _operator_methods():
    """Python's operators on traced values: each arithmetic and logic one
    in both operand orders (x + 1 and 1 + x), each comparison once."""
    binary = {"add": "_binary", "sub": "_binary", "mul": "_binary",
              "truediv": "_binary", "floordiv": "_floordiv", "mod": "_mod",
              "and": "_logic", "or": "_logic", "xor": "_logic"}
    for op, method in binary.items():
        if method == "_binary":
            forward = lambda s, o, op=op: s._binary(op, o)
            reverse = lambda s, o, op=op: s._binary(op, o, True)
        elif method == "_logic":  # commutative
            forward = reverse = lambda s, o, op=op: s._logic(op, o)
        else:
            forward = lambda s, o, m=method: getattr(s, m)(o, False)
            reverse = lambda s, o, m=method: getattr(s, m)(o, True)
        setattr(_Value, f"__{op}__", forward)
        setattr(_Value, f"__r{op}__", reverse)
    for op in _INT_PREDICATES:
        setattr(_Value, f"__{op}__", lambda s, o, op=op: s._compare(op, o))


_operator_methods()


def _describe(type_):
    return {_INDEX: "an integer index", _BOOL: "a boolean",
            _FLOAT: "a float"}.get(type_, type_)


def _region_of(*values):
    for v in values:
        if isinstance(v, _Value):
            return v
    raise TraceError("flex functions need at least one traced value")


def _traced(*values):
    return any(isinstance(v, _Value) for v in values)


def _torch(name, *args):
    """torch.<name>(*args): flex's functions also take torch tensors, so one
    mask or score function serves attnc and torch's flex_attention."""
    import torch
    return getattr(torch, name)(*args)


def where(condition, a, b):
    """`a` where `condition` holds, else `b` (arith.select)."""
    if not _traced(condition, a, b):
        return _torch("where", condition, a, b)
    anchor = _region_of(condition, a, b)
    c = anchor._operand(condition)
    if c.type != _BOOL:
        raise TraceError(f"where's condition must be a boolean, not "
                         f"{_describe(c.type)}")
    hint = next((x.type for x in (a, b) if isinstance(x, _Value)), None)
    a, b = anchor._operand(a, hint), anchor._operand(b, hint)
    kind = _FLOAT if _FLOAT in (a.type, b.type) else (
        _BOOL if a.type == b.type == _BOOL else _INDEX)
    a, b = a._as(kind), b._as(kind)
    return anchor.region.emit(
        f"arith.select {c.name}, {a.name}, {b.name} : {kind}", kind)


def minimum(a, b):
    if not _traced(a, b):
        return _torch("minimum", a, b)
    return _region_of(a, b)._operand(a)._binary("min", b)


def maximum(a, b):
    if not _traced(a, b):
        return _torch("maximum", a, b)
    return _region_of(a, b)._operand(a)._binary("max", b)


def _unary(name):
    def apply(x):
        if not _traced(x):
            return _torch(name, x)
        v = _region_of(x)._as(_FLOAT)
        return v.region.emit(f"math.{name} {v.name} : f32", _FLOAT)
    apply.__name__ = name
    apply.__doc__ = f"math.{name} of a traced value (as f32)."
    return apply


for _name in _UNARY_MATH:
    globals()[_name] = _unary(_name)

_TORCH_FUNCTIONS = dict(
    {name: globals()[name] for name in _UNARY_MATH},
    where=where, minimum=minimum, maximum=maximum, abs=abs,
    add=lambda a, b: a + b, sub=lambda a, b: a - b, mul=lambda a, b: a * b,
    div=lambda a, b: a / b, remainder=lambda a, b: a % b,
    floor_divide=lambda a, b: a // b, pow=lambda a, b: a ** b,
    __and__=lambda a, b: a & b, __or__=lambda a, b: a | b,
    logical_and=lambda a, b: a & b, logical_or=lambda a, b: a | b,
    logical_not=lambda a: ~a, neg=lambda a: -a,
    eq=lambda a, b: a == b, ne=lambda a, b: a != b, lt=lambda a, b: a < b,
    le=lambda a, b: a <= b, gt=lambda a, b: a > b, ge=lambda a, b: a >= b)


class _Traced:
    """One traced region: its code, and its block arguments once every
    region of the attention is traced (a capture found by a later region is
    an argument of the earlier ones too)."""

    def __init__(self, arg_names, arg_types, region, result, result_type):
        self.arg_names, self.arg_types = arg_names, arg_types
        self.region, self.result = region, result
        self.result_type = result_type

    def text(self):
        """The region's body: ^bb0 with the captures after its own
        arguments (%a<n>: the attention's capture %c<n - own arguments>)."""
        own = [f"%a{i}: {t}" for i, t in enumerate(self.arg_types)]
        captures = self.region.captures
        params = ", ".join(own + captures.arguments(len(own)))
        names = list(self.arg_names) + [
            f"c{i}" for i in range(len(captures.types))]
        body = "\n".join(f"      {line}" for line in self.region.lines)
        return (f"^bb0({params}):  // {', '.join(names)}\n"
                + (body + "\n" if body else "")
                + f"      attn.yield {self.result.name} : "
                  f"{self.result_type}")


def _trace(fn, arg_names, arg_types, result_type, what, captures):
    region = _Region(arg_types, captures)
    result = fn(*region.args)
    if isinstance(result, (bool, int, float)):
        result = region.args[0]._operand(result)
    if not isinstance(result, _Value):
        raise TraceError(f"{what} returned a {type(result).__name__}, not a "
                         "traced value")
    if result.type != result_type:
        if result_type == _FLOAT:
            result = result._as(_FLOAT)
        else:
            raise TraceError(f"{what} must return a boolean (keep the pair "
                             f"or not), not {_describe(result.type)}")
    return _Traced(arg_names, arg_types, region, result, result_type)


def _trace_mask(mask_mod, captures):
    return _trace(mask_mod, ("b", "h", "q_idx", "kv_idx"), [_INDEX] * 4,
                  _BOOL, "mask_mod", captures)


def _trace_score(score_mod, captures):
    return _trace(score_mod, ("score", "b", "h", "q_idx", "kv_idx"),
                  [_FLOAT] + [_INDEX] * 4, _FLOAT, "score_mod", captures)


def trace_mask(mask_mod):
    """The body of an attn mask region from mask_mod(b, h, q_idx, kv_idx)
    (the tensors it reads are block arguments after the indices)."""
    return _trace_mask(mask_mod, _Captures()).text()


def trace_score(score_mod):
    """The body of an attn score region from
    score_mod(score, b, h, q_idx, kv_idx) (the tensors it reads are block
    arguments after the indices)."""
    return _trace_score(score_mod, _Captures()).text()


def _module_text(name, mask_mod, score_mod, heads, head_dim, value_dim, dtype,
                 scale, causal, captures=None):
    """The module of one attention; the tensors its functions read go into
    `captures` (a _Captures), in the order of the function's arguments
    after q, k and v."""
    captures = _Captures() if captures is None else captures
    hq, hkv = heads
    dv = value_dim or head_dim
    q_t = f"tensor<?x{hq}x?x{head_dim}x{dtype}>"
    k_t = f"tensor<?x{hkv}x?x{head_dim}x{dtype}>"
    v_t = f"tensor<?x{hkv}x?x{dv}x{dtype}>"
    o_t = f"tensor<?x{hq}x?x{dv}x{dtype}>"
    l_t = f"tensor<?x{hq}x?xf32>"
    attrs = []
    if causal:
        attrs.append("causal")
    if scale is not None:
        attrs.append(f"scale = {_float_literal(scale)} : f32")
    attr_text = f" {{{', '.join(attrs)}}}" if attrs else ""
    traced = []
    if mask_mod is not None:
        traced.append(("mask", _trace_mask(mask_mod, captures)))
    if score_mod is not None:
        traced.append(("score", _trace_score(score_mod, captures)))
    # After every trace: each region lists every capture.
    regions = "".join(f"\n    {kind} {{\n    {region.text()}\n    }}"
                      for kind, region in traced)
    c_names = [f"%c{i}" for i in range(len(captures.types))]
    c_args = "".join(f", {n}: {t}" for n, t in zip(c_names, captures.types))
    c_operands = (f" captures({', '.join(c_names)} : "
                  f"{', '.join(captures.types)})" if c_names else "")
    return (f"func.func @{name}(%q: {q_t}, %k: {k_t}, %v: {v_t}{c_args})\n"
            f"    -> ({o_t}, {l_t}) {{\n"
            f"  %out, %lse = attn.attention %q, %k, %v{c_operands}"
            f"{attr_text}\n"
            f"      : {q_t}, {k_t}, {v_t}\n"
            f"      -> {o_t}, {l_t}{regions}\n"
            f"  return %out, %lse : {o_t}, {l_t}\n"
            "}\n")


def _find_compiler(compiler):
    """The attnc compiler's path, or None when there is none."""
    candidates = [compiler, os.environ.get("ATTNC_COMPILER"), "attnc"]
    candidates += [os.path.join(_capi._REPO_ROOT, d, "bin", "attnc")
                   for d in ("build", "build-dev")]
    for candidate in candidates:
        path = candidate and shutil.which(candidate)
        if path:
            return path
    return None


def _cache_dir(cache_dir):
    if cache_dir:
        return cache_dir
    if os.environ.get("ATTNC_CACHE_DIR"):
        return os.environ["ATTNC_CACHE_DIR"]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(
        os.path.expanduser("~"), ".cache")
    return os.path.join(base, "attnc")


def _run(command):
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise Error(f"{' '.join(command)} failed:\n{done.stderr.strip()}")
    return done.stdout


def _digest(*parts):
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:32]


def _compile(text, compiler, flags, cache_dir):
    """The cached package of `text` and whether it was compiled now. Files
    are named by the module and flags, then by the compiler's version; a
    machine without the compiler (a GPU node given a cache compiled
    elsewhere) takes the newest package of the module and flags."""
    directory = _cache_dir(cache_dir)
    stem = f"flex-{_digest(text, *flags)}"
    if compiler is None:
        found = glob.glob(os.path.join(directory, stem + "-*.attnpkg"))
        if not found:
            raise Error("attnc.flex needs the attnc compiler (compiler=, "
                        "$ATTNC_COMPILER or attnc on PATH), or this module in "
                        f"its cache {directory}")
        return max(found, key=os.path.getmtime), False
    # A rebuilt compiler of the same version must not reuse the packages of
    # the previous build: its size and time stamp join the version.
    stat = os.stat(compiler)
    version = _run([compiler, "--version"]).strip()
    build = f"{version} {stat.st_size} {stat.st_mtime_ns}"
    path = os.path.join(directory, f"{stem}-{_digest(build)}.attnpkg")
    if os.path.exists(path):
        return path, False
    os.makedirs(directory, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=directory) as scratch:
        source = os.path.join(scratch, "flex.mlir")
        with open(source, "w", encoding="utf-8") as f:
            f.write(text)
        built = os.path.join(scratch, "flex.attnpkg")
        _run([compiler, source, *flags, "-o", built])
        os.replace(built, path)  # atomic: readers see no partial package
    return path, True


class Attention:
    """A compiled flex attention: ``attention(q, k, v) -> (out, lse)`` on
    torch tensors, through the torch custom op ``attention.op``, or
    ``attention.function`` for attnc.Tensor calls (which take the captured
    tensors after q, k and v). ``captures`` are the tensors the mask and
    score functions read, in the function's order: each call passes these
    objects, so it sees what was written to them in place."""

    def __init__(self, mlir, package_path, compiled, function, package,
                 runtime, captures=()):
        self.mlir = mlir
        self.package_path = package_path
        self.compiled = compiled  # False when the package came from the cache
        self.function = function
        self.captures = tuple(captures)
        self._package, self._runtime = package, runtime

    @property
    def op(self):
        """The package function's torch op (an attnc.TorchOp)."""
        from . import torch_ops
        return torch_ops.function_op(self.function)

    def __call__(self, q, k, v):
        # through self.op
        return torch_call(self.function, q, k, v, *self.captures)


def compile_attention(mask_mod=None, score_mod=None, *, heads, head_dim,
                      value_dim=None, dtype="bf16", scale=None, causal=False,
                      target="host", compiler=None, cache_dir=None,
                      name="flex_attention"):
    """Traces `mask_mod` and `score_mod` and compiles attention over
    q [B, heads[0], Nq, head_dim], k [B, heads[1], Nk, head_dim] and
    v [B, heads[1], Nk, value_dim] of `dtype` for `target` (``host``,
    ``sm_90a``, or several, comma separated) into the cache, without a
    device. Tensors the functions read become arguments after v (only
    their element types and ranks are in the module, so any tensors of
    those kinds serve to compile). Returns (module text, package path,
    whether it compiled now)."""
    return _compile_attention(
        mask_mod, score_mod, heads=heads, head_dim=head_dim,
        value_dim=value_dim, dtype=dtype, scale=scale, causal=causal,
        target=target, compiler=compiler, cache_dir=cache_dir, name=name)[:3]


def _compile_attention(mask_mod, score_mod, *, heads, head_dim, value_dim=None,
                       dtype="bf16", scale=None, causal=False, target="host",
                       compiler=None, cache_dir=None, name="flex_attention"):
    """compile_attention's (text, path, compiled), and the captured
    tensors."""
    if isinstance(heads, int):
        heads = (heads, heads)
    captures = _Captures()
    text = _module_text(name, mask_mod, score_mod, heads, head_dim, value_dim,
                        dtype, scale, causal, captures)
    path, compiled = _compile(text, None if compiler is False
                              else _find_compiler(compiler),
                              [f"--target={target}"], cache_dir)
    return text, path, compiled, captures.tensors


def attention(mask_mod=None, score_mod=None, *, target="host", device=None,
              name="flex_attention", **options):
    """compile_attention, then the package loaded onto `device` (default:
    ``host`` for a host target, else ``cuda:0``) as a callable Attention,
    which passes the tensors the functions read (``captures``) after q, k
    and v on every call."""
    text, path, compiled, captures = _compile_attention(
        mask_mod, score_mod, target=target, name=name, **options)
    if device is None:
        device = "host" if target.split(",")[0] == "host" else "cuda:0"
    runtime = Runtime(device)
    package = runtime.load(path)
    attention = Attention(text, path, compiled, package.function(name),
                          package, runtime, captures)
    if _have_torch():
        attention.op  # made now: a torch.compile'd first call cannot
    return attention


def _have_torch():
    """Whether torch is imported or importable (without importing it)."""
    try:
        return "torch" in sys.modules or \
            importlib.util.find_spec("torch") is not None
    except (ImportError, ValueError):
        return False
