"""Graph conversion: ``aicore.fx.optimize(module)`` traces a module with torch.fx and rewrites the
patterns aicore has fused operators for into ``torch.ops.aicore.*`` calls (docs/pytorch.md,
"Graph conversion"):

- attention: ``matmul(q, k^T)`` · scale → optional mask → softmax → ``matmul(·, v)`` becomes
  ``scaled_dot_product_attention(q, k, v, attn_mask, scale=scale)``. Accepted forms: ``@``,
  ``torch.matmul``, ``torch.bmm``, ``.matmul``/``.bmm``; ``k.transpose(-2, -1)`` (or (-1, -2),
  ``torch.transpose``, ``.mT``, (1, 2) under bmm, any dims that are the last two when
  ``example_inputs`` give the ranks); ``* c``, ``/ c`` (c a Python number such as
  ``math.sqrt(d)``), also on q before the matmul; ``+ mask`` (float, added) or
  ``.masked_fill(m, v)`` with v = -inf or v <= -1e4 (becomes the boolean keep-mask ``~m``);
  ``torch.softmax``, ``F.softmax``, ``.softmax``, ``nn.Softmax`` over the last dim (also in
  float32 cast back with ``.to(q.dtype)`` / ``.type_as(q)``); dropout with p = 0 or in eval mode
  between softmax and the second matmul.
- linear + bias + activation: ``nn.Linear`` or ``F.linear`` followed by relu / gelu (erf) /
  silu (module, function or method form) becomes ``linear(x, w, b, activation)``.
- layer_norm / rms_norm: ``nn.LayerNorm``, ``F.layer_norm`` → ``aicore.layer_norm``; the usual
  hand-written RMSNorm (``x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w``, with
  ``x*x``/``**2``/``torch.square``, ``/ torch.sqrt(...)``, ``x.float()`` ... ``.type_as(x)``,
  the weight on either side) → ``aicore.rms_norm``.
- residual add + layer_norm: recognised and reported; the norm becomes ``aicore.layer_norm`` and
  the add stays a separate op (aicore has no add + layer_norm kernel).
- single ops left over: ``softmax``, ``gelu``, ``silu`` → their aicore ops.

A pattern whose target op is not in this build is reported and left as it is. ``report=True``
prints what was fused and what was not, and why; the report is always kept as
``gm.aicore_fusion_report`` (a FusionReport). On torch >= 2.0 the same pass is registered as the
``torch.compile`` backend "aicore" (``backend``); Debian's torch 1.13 has no torch.compile, so
that path is untested here.
"""

import operator

import torch
import torch.fx
import torch.nn as nn
import torch.nn.functional as F

__all__ = ["optimize", "FusionReport", "backend"]

_AICORE_DTYPES = (torch.float32, torch.float16, torch.bfloat16)


def _op(name):
    """torch.ops.aicore.<name>, or None when this build lacks it."""
    try:
        return getattr(torch.ops.aicore, name)
    except (AttributeError, RuntimeError):
        return None


class FusionReport:
    """What optimize did: ``fused`` and ``skipped`` are lists of dicts with ``pattern`` (e.g.
    "attention"), ``node`` (the graph node it starts at), and ``target`` (the aicore op) or
    ``reason`` (why it was left alone)."""

    def __init__(self):
        self.fused = []
        self.skipped = []

    def add_fused(self, pattern, node, target, note=""):
        self.fused.append({"pattern": pattern, "node": str(node), "target": target,
                           "note": note})

    def add_skipped(self, pattern, node, reason):
        self.skipped.append({"pattern": pattern, "node": str(node), "reason": reason})

    def count(self, pattern):
        """How many times `pattern` was fused."""
        return sum(1 for f in self.fused if f["pattern"] == pattern)

    def __str__(self):
        lines = [f"aicore.fx.optimize: {len(self.fused)} fused, {len(self.skipped)} not fused"]
        for f in self.fused:
            lines.append(f"  fused      {f['pattern']:<23} at {f['node']:<16} -> {f['target']}"
                         + (f" ({f['note']})" if f["note"] else ""))
        for s in self.skipped:
            lines.append(f"  not fused  {s['pattern']:<23} at {s['node']:<16}: {s['reason']}")
        return "\n".join(lines)

    __repr__ = __str__


class _Reject(Exception):
    """A candidate that does not match; the message says why (for the report)."""


# ---------------------------------------------------------------------------------------------
# Node predicates. Each accepts the function, method and module forms of one torch operation.

def _arg(node, index, name, default=None):
    if len(node.args) > index:
        return node.args[index]
    return node.kwargs.get(name, default)


def _is_fn(node, *targets):
    return isinstance(node, torch.fx.Node) and node.op == "call_function" and any(
        node.target is t for t in targets)


def _is_method(node, *names):
    return isinstance(node, torch.fx.Node) and node.op == "call_method" and node.target in names


class _Graph:
    """The GraphModule being rewritten plus what the predicates need from it."""

    def __init__(self, gm, report):
        self.gm = gm
        self.graph = gm.graph
        self.report = report

    def module(self, node):
        if isinstance(node, torch.fx.Node) and node.op == "call_module":
            return self.gm.get_submodule(node.target)
        return None

    def attr(self, node):
        """The tensor a get_attr node names, else None."""
        if not (isinstance(node, torch.fx.Node) and node.op == "get_attr"):
            return None
        obj = self.gm
        for part in node.target.split("."):
            obj = getattr(obj, part)
        return obj

    def get_attr(self, qualified):
        return self.graph.get_attr(qualified)


def _rank(node):
    meta = getattr(node, "meta", {}).get("tensor_meta") if isinstance(node, torch.fx.Node) else None
    return len(meta.shape) if meta is not None and hasattr(meta, "shape") else None


def _is_last_dim(dim, node):
    if dim == -1:
        return True
    rank = _rank(node)
    return isinstance(dim, int) and rank is not None and dim == rank - 1


def _matmul_operands(node):
    """(a, b, is_bmm) when `node` is a matrix product, else None."""
    if _is_fn(node, operator.matmul, torch.matmul):
        return node.args[0], node.args[1], False
    if _is_fn(node, torch.bmm):
        return node.args[0], node.args[1], True
    if _is_method(node, "matmul"):
        return node.args[0], node.args[1], False
    if _is_method(node, "bmm"):
        return node.args[0], node.args[1], True
    return None


def _softmax_input(g, node, rank=None, cast_back=False):
    """The input of a softmax over the last dim (no dtype, or float32 when `cast_back`: its
    result is cast back to the inputs' dtype), else None; raises _Reject for a softmax of another
    form. `rank`: the input's rank when the caller knows it (bmm: 3)."""
    if _is_fn(node, torch.softmax, F.softmax) or _is_method(node, "softmax"):
        x, dim = node.args[0], _arg(node, 1, "dim")
        dtype = _arg(node, 3 if _is_fn(node, F.softmax) else 2, "dtype")
    elif isinstance(g.module(node), nn.Softmax):
        x, dim, dtype = node.args[0], g.module(node).dim, None
    else:
        return None
    if dtype is not None and not (cast_back and dtype is torch.float32):
        raise _Reject(f"the softmax converts to {dtype}"
                      + ("" if cast_back else " and its result is not cast back to q's dtype"))
    if not (_is_last_dim(dim, x) or (rank is not None and dim == rank - 1)):
        raise _Reject(f"the softmax is over dim {dim}, not the last dim")
    return x


def _dropout_input(g, node):
    """(input, p) when `node` is a dropout, else None."""
    mod = g.module(node)
    if isinstance(mod, nn.Dropout):
        return node.args[0], (mod.p if mod.training else 0.0)
    if _is_fn(node, F.dropout, torch.dropout):
        p = _arg(node, 1, "p", 0.5)
        training = _arg(node, 2, "training", True if _is_fn(node, F.dropout) else None)
        return node.args[0], (p if training else 0.0)
    return None


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# The scale factor 1/sqrt(E) written with the traced head dim E (q.shape[-1] ** -0.5): SDPA's
# default scale, given as scale=None. The tensor E comes from is kept to check it is q or k.
class _HeadDimScale:
    def __init__(self, source):
        self.source = source


def _head_dim_source(node):
    """t when `node` is t.shape[-1], t.size(-1) or t.size()[-1], else None."""
    if _is_method(node, "size") and len(node.args) == 2 and node.args[1] == -1:
        return node.args[0]
    if _is_fn(node, operator.getitem) and node.args[1] == -1:
        base = node.args[0]
        if _is_fn(base, getattr) and base.args[1] == "shape":
            return base.args[0]
        if _is_method(base, "size") and len(base.args) == 1:
            return base.args[0]
    return None


def _inverse_sqrt_head_dim(value, inverse):
    """_HeadDimScale when `value` is E ** -0.5 (`inverse`: E ** 0.5), else None."""
    if not _is_fn(value, operator.pow) or value.args[1] != (0.5 if inverse else -0.5):
        return None
    source = _head_dim_source(value.args[0])
    return _HeadDimScale(source) if source is not None else None


def _scaled(node):
    """(inner, factor) when `node` multiplies or divides by a Python number (or by the traced
    head dim's 1/sqrt: factor is a _HeadDimScale), else None."""
    if _is_fn(node, operator.mul, torch.mul) or _is_method(node, "mul"):
        a, b = node.args[0], node.args[1]
        for x, c in ((a, b), (b, a)):
            if _number(c) and isinstance(x, torch.fx.Node):
                return x, float(c)
            head = _inverse_sqrt_head_dim(c, inverse=False)
            if head is not None and isinstance(x, torch.fx.Node):
                return x, head
        raise _Reject("the scores are scaled by a tensor or a runtime value, not a number")
    if _is_fn(node, operator.truediv, torch.div) or _is_method(node, "div"):
        a, b = node.args[0], node.args[1]
        if _number(b) and b != 0 and isinstance(a, torch.fx.Node) and not node.kwargs:
            return a, 1.0 / float(b)
        head = _inverse_sqrt_head_dim(b, inverse=True)
        if head is not None and isinstance(a, torch.fx.Node) and not node.kwargs:
            return a, head
        raise _Reject("the scores are divided by a tensor or a runtime value, not a number")
    return None


def _transposed_last_two(node, is_bmm):
    """k when `node` is k with its last two dims swapped, else raises _Reject."""
    if _is_method(node, "transpose") or _is_fn(node, torch.transpose):
        k, d0, d1 = node.args[0], _arg(node, 1, "dim0"), _arg(node, 2, "dim1")
        dims = {d0, d1}
        if dims == {-2, -1} or (is_bmm and dims == {1, 2}):
            return k
        rank = _rank(k)
        if rank is not None and all(isinstance(d, int) for d in dims) and \
                {d % rank for d in dims} == {rank - 2, rank - 1}:
            return k
        raise _Reject(f"the key is transposed over dims ({d0}, {d1}), not known to be the last "
                      "two (pass example_inputs to optimize to give the ranks)")
    if _is_fn(node, getattr) and node.args[1] == "mT":
        return node.args[0]
    raise _Reject("the second operand of the first matmul is not k.transpose(-2, -1)")


def _erase_dead(g, nodes):
    """Erases the nodes of `nodes` left without users (only those: a graph-wide dead-code pass
    would also drop unused in-place ops)."""
    pending = [n for n in dict.fromkeys(nodes) if isinstance(n, torch.fx.Node)]
    changed = True
    while changed:
        changed = False
        for n in list(pending):
            if not n.users:
                g.graph.erase_node(n)
                pending.remove(n)
                changed = True


def _skip_dtype(g, pattern, node):
    """Reports and returns True when ShapeProp (example_inputs) found `node`'s result in a dtype
    aicore's ops do not take; without example_inputs the dtype is unknown and this is False."""
    meta = node.meta.get("tensor_meta")
    dtype = getattr(meta, "dtype", None)
    if dtype is None or dtype in _AICORE_DTYPES:
        return False
    g.report.add_skipped(pattern, node, f"the result is {dtype}; aicore's ops take float32, "
                         "float16 and bfloat16")
    return True


def _single_user(node):
    return isinstance(node, torch.fx.Node) and len(node.users) == 1


# ---------------------------------------------------------------------------------------------
# Attention.

def _parse_attention(g, out):
    """Matches `out` = matmul(softmax(scores), v). Returns None when `out` is not an attention
    candidate at all, else (q, k, v, additive mask or None, masked_fill mask or None, scale or
    None for 1/sqrt(E), the nodes the fused op replaces), or raises _Reject naming why it cannot
    be fused."""
    mm = _matmul_operands(out)
    if mm is None:
        return None
    probs, v, is_bmm = mm
    inner = probs
    drop = _dropout_input(g, inner) if isinstance(inner, torch.fx.Node) else None
    if drop is not None:
        inner, p = drop
    # softmax(·, dtype=torch.float32).to(q.dtype) / .type_as(q), as Hugging Face writes it: the
    # fused op computes in float32 and returns q's dtype.
    cast = None
    if _is_method(inner, "to") and len(inner.args) == 2 and not inner.kwargs and \
            _is_fn(inner.args[1], getattr) and inner.args[1].args[1] == "dtype":
        cast, like, inner = inner, inner.args[1].args[0], inner.args[0]
    elif _is_method(inner, "type_as"):
        cast, like, inner = inner, inner.args[1], inner.args[0]
    if not isinstance(inner, torch.fx.Node):
        return None
    scores = _softmax_input(g, inner, rank=3 if is_bmm else None, cast_back=cast is not None)
    if scores is None:
        return None
    softmax_node = inner
    if drop is not None and p != 0:
        raise _Reject(f"dropout p={p} between softmax and matmul (aicore's attention has no "
                      "dropout; fused in eval mode or with p=0)")
    if not _single_user(probs) or not _single_user(softmax_node) or \
            (cast is not None and not _single_user(cast)):
        raise _Reject("the attention weights (softmax output) are used elsewhere")
    chain = []  # intermediate nodes that must have one user
    if cast is not None:
        chain.append(cast)
    mask = None
    masked_fill = None
    x = scores
    # Optional mask (after the scale, the usual order).
    if _is_fn(x, operator.add, torch.add) or _is_method(x, "add"):
        a, b = x.args[0], x.args[1]
        if x.kwargs:
            raise _Reject("the mask add has keyword arguments (alpha)")
        # the scores side is the one that leads to a matmul
        if _leads_to_scores(a):
            x, mask = a, b
        elif _leads_to_scores(b):
            x, mask = b, a
        else:
            raise _Reject("no q @ k^T before the softmax")
        if not isinstance(mask, torch.fx.Node):
            raise _Reject(f"the scores are shifted by {mask!r}, not by a mask tensor")
        chain.append(scores)
    elif _is_method(x, "masked_fill") or _is_fn(x, torch.masked_fill):
        src, m, value = x.args[0], _arg(x, 1, "mask"), _arg(x, 2, "value")
        if not (_number(value) and value <= -1e4):
            raise _Reject(f"masked_fill with {value!r} (fused only for -inf or values <= -1e4, "
                          "which softmax turns into 0)")
        masked_fill = m
        chain.append(x)
        x = src
    scale = 1.0
    sc = _scaled(x)
    if sc is not None:
        chain.append(x)
        x, scale = sc
    mm1 = _matmul_operands(x)
    if mm1 is None:
        raise _Reject("the softmax input is not q @ k^T (scaled, masked)")
    chain.append(x)
    q, kt, is_bmm1 = mm1
    k = _transposed_last_two(kt, is_bmm1)
    if not _single_user(kt):
        raise _Reject("k^T is used elsewhere")
    chain.append(kt)
    for n in chain:
        if not _single_user(n):
            raise _Reject(f"the intermediate {n} is used elsewhere")
    qs = _scaled(q) if isinstance(q, torch.fx.Node) and _single_user(q) else None
    if qs is not None:
        chain.append(q)
        q, factor = qs
        scale = _combine(scale, factor)
    if cast is not None and like is not q and like is not k and like is not v:
        raise _Reject("the attention weights are cast to the dtype of a tensor other than q, k, "
                      "v")
    if isinstance(scale, _HeadDimScale):
        if scale.source is not q and scale.source is not k:
            raise _Reject("the scale is 1/sqrt of the last dim of a tensor other than q or k")
        scale = None  # SDPA's default, 1/sqrt(E)
    dead = [out, probs, softmax_node] + chain
    if cast is not None and isinstance(cast.args[1], torch.fx.Node):
        dead.append(cast.args[1])  # q.dtype, when nothing else uses it
    return q, k, v, mask, masked_fill, scale, dead


def _combine(a, b):
    """The product of two scale factors (floats or one _HeadDimScale)."""
    if isinstance(a, _HeadDimScale) or isinstance(b, _HeadDimScale):
        if isinstance(a, _HeadDimScale) and isinstance(b, _HeadDimScale):
            raise _Reject("the scores are scaled by 1/sqrt(E) twice")
        head, other = (a, b) if isinstance(a, _HeadDimScale) else (b, a)
        if other != 1.0:
            raise _Reject("the scores are scaled by 1/sqrt(E) and by a number")
        return head
    return a * b


def _leads_to_scores(node):
    """Whether `node` is q @ k^T, possibly scaled."""
    if not isinstance(node, torch.fx.Node):
        return False
    try:
        sc = _scaled(node)
    except _Reject:
        return False
    if sc is not None:
        node = sc[0]
    return _matmul_operands(node) is not None


def _fuse_attention(g):
    target = _op("scaled_dot_product_attention")
    for node in list(g.graph.nodes):
        try:
            found = _parse_attention(g, node)
        except _Reject as e:
            g.report.add_skipped("attention", node, str(e))
            continue
        if found is None:
            continue
        if target is None:
            g.report.add_skipped("attention", node, "torch.ops.aicore.scaled_dot_product_attention "
                                 "is not in this build")
            continue
        if _skip_dtype(g, "attention", node):
            continue
        q, k, v, mask, masked_fill, scale, dead = found
        with g.graph.inserting_before(node):
            if masked_fill is not None:
                mask = g.graph.call_function(torch.logical_not, (masked_fill,))
            new = g.graph.call_function(target, (q, k, v),
                                        {"attn_mask": mask, "dropout_p": 0.0,
                                         "is_causal": False, "scale": scale})
        node.replace_all_uses_with(new)
        _erase_dead(g, dead)
        g.report.add_fused("attention", node, "aicore.scaled_dot_product_attention",
                           ("scale=1/sqrt(E)" if scale is None else f"scale={scale:.6g}")
                           + (", mask" if mask is not None else ""))


# ---------------------------------------------------------------------------------------------
# Linear + bias + activation.

def _activation(g, node):
    """'relu', 'gelu', 'silu' when `node` is that activation (gelu: the erf form), 'gelu_tanh'
    for gelu's tanh form, else None."""
    mod = g.module(node)
    if isinstance(mod, nn.ReLU):
        return "relu"
    if isinstance(mod, nn.SiLU):
        return "silu"
    if isinstance(mod, nn.GELU):
        return "gelu" if mod.approximate == "none" else "gelu_tanh"
    if _is_fn(node, F.relu, torch.relu) or _is_method(node, "relu"):
        return "relu"
    if _is_fn(node, F.silu) or _is_method(node, "silu"):
        return "silu"
    if _is_fn(node, F.gelu) or _is_method(node, "gelu"):
        return "gelu" if _arg(node, 1, "approximate", "none") == "none" else "gelu_tanh"
    return None


def _linear_operands(g, node):
    """(x, weight node or qualified name, bias node / name / None) for nn.Linear and F.linear."""
    mod = g.module(node)
    if isinstance(mod, nn.Linear):
        return (node.args[0], node.target + ".weight",
                node.target + ".bias" if mod.bias is not None else None)
    if _is_fn(node, F.linear, torch._C._nn.linear):
        return node.args[0], _arg(node, 1, "weight"), _arg(node, 2, "bias")
    return None


def _fuse_linear(g):
    target = _op("linear")
    for node in list(g.graph.nodes):
        ops = _linear_operands(g, node)
        if ops is None:
            continue
        x, w, b = ops
        act_node, act = None, "none"
        if len(node.users) == 1:
            user = next(iter(node.users))
            kind = _activation(g, user)
            if kind in ("relu", "gelu", "silu"):
                act_node, act = user, kind
        if target is None:
            g.report.add_skipped("linear" + ("+" + act if act_node else ""), node,
                                 "torch.ops.aicore.linear is not in this build")
            continue
        if _skip_dtype(g, "linear", node):
            continue
        anchor = act_node if act_node is not None else node
        with g.graph.inserting_before(anchor):
            w_node = g.get_attr(w) if isinstance(w, str) else w
            b_node = g.get_attr(b) if isinstance(b, str) else b
            new = g.graph.call_function(target, (x, w_node, b_node, act))
        anchor.replace_all_uses_with(new)
        g.graph.erase_node(anchor)
        if anchor is not node:
            g.graph.erase_node(node)
        g.report.add_fused("linear" + ("+bias" if b is not None else "")
                           + (f"+{act}" if act_node is not None else ""), node, "aicore.linear",
                           f"activation={act}")


# ---------------------------------------------------------------------------------------------
# layer_norm / rms_norm.

def _is_add(node):
    return (_is_fn(node, operator.add, torch.add) or _is_method(node, "add")) and not node.kwargs


def _fuse_layer_norm(g):
    target = _op("layer_norm")
    for node in list(g.graph.nodes):
        mod = g.module(node)
        if isinstance(mod, nn.LayerNorm):
            x = node.args[0]
            shape = list(mod.normalized_shape)
            w = node.target + ".weight" if mod.weight is not None else None
            b = node.target + ".bias" if mod.bias is not None else None
            eps = mod.eps
        elif _is_fn(node, F.layer_norm, torch.layer_norm):
            x, shape = node.args[0], _arg(node, 1, "normalized_shape")
            w, b, eps = _arg(node, 2, "weight"), _arg(node, 3, "bias"), _arg(node, 4, "eps", 1e-5)
            if not (isinstance(shape, (list, tuple)) and all(isinstance(s, int) for s in shape)):
                g.report.add_skipped("layer_norm", node, "normalized_shape is computed at run "
                                     "time, not constant ints")
                continue
            if not _number(eps):
                g.report.add_skipped("layer_norm", node, "eps is not a number")
                continue
            shape = list(shape)
        else:
            continue
        residual = _is_add(x) and all(isinstance(a, torch.fx.Node) for a in x.args[:2])
        pattern = "residual_add+layer_norm" if residual else "layer_norm"
        if target is None:
            g.report.add_skipped(pattern, node, "torch.ops.aicore.layer_norm is not in this build")
            continue
        if _skip_dtype(g, pattern, node):
            continue
        with g.graph.inserting_before(node):
            w_node = g.get_attr(w) if isinstance(w, str) else w
            b_node = g.get_attr(b) if isinstance(b, str) else b
            new = g.graph.call_function(target, (x, shape, w_node, b_node, float(eps)))
        node.replace_all_uses_with(new)
        g.graph.erase_node(node)
        g.report.add_fused(pattern, node, "aicore.layer_norm",
                           "the residual add runs before it: aicore has no add + layer_norm "
                           "kernel" if residual else "")


def _squared(node):
    """x when `node` is x², else None."""
    if (_is_fn(node, torch.pow, operator.pow) or _is_method(node, "pow")) and \
            node.args[1] in (2, 2.0):
        return node.args[0]
    if (_is_fn(node, operator.mul, torch.mul) or _is_method(node, "mul")) and \
            node.args[0] is node.args[1] and isinstance(node.args[0], torch.fx.Node):
        return node.args[0]
    if _is_fn(node, torch.square) or _is_method(node, "square"):
        return node.args[0]
    return None


def _mean_last_keepdim(node):
    """The input of mean(·, dim=-1, keepdim=True), else None."""
    if not (_is_fn(node, torch.mean) or _is_method(node, "mean")):
        return None
    dim, keepdim = _arg(node, 1, "dim"), _arg(node, 2, "keepdim", False)
    if isinstance(dim, (list, tuple)) and len(dim) == 1:
        dim = dim[0]
    if dim != -1 or keepdim is not True or node.kwargs.get("dtype") is not None:
        return None
    return node.args[0]


def _upcast_source(node):
    """x0 when `node` is x0.float() / x0.to(torch.float32), else None."""
    if _is_method(node, "float") and len(node.args) == 1:
        return node.args[0]
    if _is_method(node, "to") and len(node.args) == 2 and node.args[1] is torch.float32:
        return node.args[0]
    return None


def _parse_rms(g, out):
    """Matches `out` = normed * w (either order). Returns (x, w_node, eps, nodes) or None."""
    if not (_is_fn(out, operator.mul, torch.mul) or _is_method(out, "mul")):
        return None
    for normed, w in ((out.args[0], out.args[1]), (out.args[1], out.args[0])):
        if not isinstance(normed, torch.fx.Node) or not isinstance(w, torch.fx.Node):
            continue
        found = _parse_rms_normed(normed)
        if found is None:
            continue
        x, eps, inner = found
        weight = g.attr(w)
        if not isinstance(weight, torch.Tensor) or weight.dim() != 1:
            g.report.add_skipped("rms_norm", out, "the weight is not a 1-d parameter or buffer")
            return None
        if any(not _single_user(n) for n in inner):
            g.report.add_skipped("rms_norm", out, "an intermediate of the norm is used elsewhere")
            return None
        return x, w, eps, [out] + inner
    return None


def _parse_rms_normed(node):
    """(x, eps, intermediate nodes) when `node` is x / rms(x), possibly with an fp32 round trip."""
    inner = []
    post_cast_to = None
    if _is_method(node, "type_as"):
        post_cast_to = node.args[1]
        inner.append(node)
        node = node.args[0]
    if (_is_fn(node, operator.mul, torch.mul) or _is_method(node, "mul")):
        pairs = ((node.args[0], node.args[1]), (node.args[1], node.args[0]))
        op = "rsqrt"
    elif _is_fn(node, operator.truediv, torch.div) or _is_method(node, "div"):
        pairs = ((node.args[0], node.args[1]),)
        op = "sqrt"
    else:
        return None
    for x, r in pairs:
        if not isinstance(r, torch.fx.Node):
            continue
        if not (_is_fn(r, getattr(torch, op)) or _is_method(r, op)):
            continue
        s = r.args[0]
        if not _is_add(s):
            continue
        a, b = s.args[0], s.args[1]
        mean, eps = (a, b) if _number(b) else (b, a)
        if not _number(eps) or not isinstance(mean, torch.fx.Node):
            continue
        sq = _mean_last_keepdim(mean)
        if sq is None or _squared(sq) is not x:
            continue
        source = x
        up = _upcast_source(x)
        if post_cast_to is not None:
            if up is None or post_cast_to is not up:
                continue
            source = up
        elif up is not None:
            continue  # an fp32 result of a lower-precision input: dtypes would differ
        return source, float(eps), inner + [node, r, s, mean, sq]
    return None


def _fuse_rms_norm(g):
    target = _op("rms_norm")
    for node in list(g.graph.nodes):
        found = _parse_rms(g, node)
        if found is None:
            continue
        if target is None:
            g.report.add_skipped("rms_norm", node, "torch.ops.aicore.rms_norm is not in this build")
            continue
        if _skip_dtype(g, "rms_norm", node):
            continue
        x, w, eps, dead = found
        with g.graph.inserting_before(node):
            new = g.graph.call_function(target, (x, w, eps))
        node.replace_all_uses_with(new)
        _erase_dead(g, dead)
        g.report.add_fused("rms_norm", node, "aicore.rms_norm", f"eps={eps:g}")


# ---------------------------------------------------------------------------------------------
# Single ops left over.

def _single_softmax(g, node):
    """(x, dim) of a softmax over any dim without dtype, else None."""
    if _is_fn(node, torch.softmax, F.softmax) or _is_method(node, "softmax"):
        x, dim = node.args[0], _arg(node, 1, "dim")
        dtype = _arg(node, 3 if _is_fn(node, F.softmax) else 2, "dtype")
    elif isinstance(g.module(node), nn.Softmax):
        x, dim, dtype = node.args[0], g.module(node).dim, None
    else:
        return None
    return (x, dim) if isinstance(dim, int) and dtype is None else None


def _fuse_single_ops(g):
    for node in list(g.graph.nodes):
        soft = _single_softmax(g, node)
        kind = _activation(g, node) if soft is None else None
        if (soft is not None or kind in ("gelu", "gelu_tanh", "silu")) and \
                _skip_dtype(g, "softmax" if soft is not None else kind, node):
            continue
        if soft is not None and _op("softmax") is not None:
            with g.graph.inserting_before(node):
                new = g.graph.call_function(_op("softmax"), soft)
            name = "softmax"
        else:
            if kind in ("gelu", "gelu_tanh", "silu") and _op(kind[:4]) is not None:
                x = node.args[0]
                with g.graph.inserting_before(node):
                    if kind == "silu":
                        new = g.graph.call_function(_op("silu"), (x,))
                    else:
                        new = g.graph.call_function(
                            _op("gelu"), (x,), {"approximate": "tanh" if kind == "gelu_tanh"
                                                else "none"})
                name = kind
            else:
                continue
        node.replace_all_uses_with(new)
        g.graph.erase_node(node)
        g.report.add_fused(name, node, f"aicore.{name.split('_')[0]}")


# ---------------------------------------------------------------------------------------------

# torch.nn modules with attention inside that torch.fx keeps as leaves (calls, not traced into).
_ATTENTION_LEAVES = (nn.MultiheadAttention, nn.TransformerEncoderLayer,
                     nn.TransformerDecoderLayer, nn.TransformerEncoder, nn.TransformerDecoder,
                     nn.Transformer)


def _report_leaves(g):
    for node in g.graph.nodes:
        mod = g.module(node)
        if isinstance(mod, _ATTENTION_LEAVES):
            g.report.add_skipped("attention", node, f"nn.{type(mod).__name__} is a torch.nn leaf "
                                 "module: torch.fx does not trace into it")


def _optimize_graph(gm, report):
    g = _Graph(gm, report)
    _report_leaves(g)
    _fuse_attention(g)
    _fuse_linear(g)
    _fuse_layer_norm(g)
    _fuse_rms_norm(g)
    _fuse_single_ops(g)
    gm.graph.lint()
    gm.recompile()
    gm.aicore_fusion_report = report
    return gm


def optimize(module, report=False, example_inputs=None):
    """Traces `module` (an nn.Module; a GraphModule is rewritten in place) with
    torch.fx.symbolic_trace and returns a GraphModule in which the patterns of this module's
    docstring call torch.ops.aicore's fused operators. Parameters are shared with `module`
    (training the result trains it). Numerics equal eager within the ops' tolerances
    (docs/ops.md); the fused ops take fp32, fp16 and bf16.

    `example_inputs` (a tuple), when given, are run once through the graph (ShapeProp) so that
    dims written as positive numbers can be matched. `report=True` prints the FusionReport; it is
    kept as ``result.aicore_fusion_report`` either way. Modules torch.fx keeps as leaves
    (torch.nn's own, e.g. nn.MultiheadAttention, nn.TransformerEncoderLayer) are not traced into;
    data-dependent control flow makes symbolic_trace raise its own error.
    """
    if isinstance(module, torch.fx.GraphModule):
        gm = module
    else:
        gm = torch.fx.symbolic_trace(module)
    if example_inputs is not None:
        from torch.fx.passes.shape_prop import ShapeProp
        ShapeProp(gm).propagate(*example_inputs)
    result = _optimize_graph(gm, FusionReport())
    if report:
        print(result.aicore_fusion_report)
    return result


def backend(gm, example_inputs):
    """A torch.compile backend (torch >= 2.0): the same rewrite on the graph dynamo captured,
    then run eagerly. Registered as "aicore" when torch._dynamo exists; untested on 1.13."""
    del example_inputs
    return _optimize_graph(gm, FusionReport()).forward


def _register_compile_backend():
    if not hasattr(torch, "compile"):
        return False  # torch 1.x
    try:
        from torch._dynamo import register_backend
    except ImportError:
        return False
    try:
        register_backend(name="aicore")(backend)
    except Exception:  # registered already (a second import) or an API change
        return False
    return True


compile_backend_registered = _register_compile_backend()
