"""PyTorch autograd through attnc packages: how a function's gradient
function is called.

    import attnc
    pkg = attnc.Runtime("cuda:0").load("model.attnpkg")
    attention = attnc.autograd_function(pkg, "attention")
    out, lse = attention(q, k, v)          # torch tensors on the package's device
    (out * w).sum().backward()             # q.grad, k.grad, v.grad

The gradient of a package function ``f`` is the package function whose
manifest entry says ``"gradient_of": "f"`` (attnc derives ``f_bwd`` for a
function marked ``attributes {attn.backward}``, or for every public function
with ``attnc --backward``). It takes f's inputs, f's outputs (saved by the
forward call), then one cotangent per differentiable output of f, and
returns the gradients of f's inputs. Attention's ``lse`` is an auxiliary
output: it takes no cotangent, so a loss must not depend on it.

``GradientPlan`` reads all of that from the manifest and needs no torch.
``attnc.torch_ops`` makes f and its gradient function two
``torch.library.custom_op`` operators with fake implementations, so that
torch.compile can trace them, and registers the gradient function as f's
backward formula (``attnc.torch_op``, which does so wherever the package
holds a gradient function, and ``attnc.autograd_function``, which insists
on one).

Limits: no double backward (the gradient function has no gradient). A loss
through lse is refused when the backward runs eagerly; when torch.compile
traces a graph that returns lse, the traced backward cannot see whether lse
reaches the loss, and its cotangent is dropped.
"""

from . import Error

#: Op kinds whose results at these positions take no cotangent: the lse of
#: attention (attn.attention's isDifferentiableResult in the compiler).
_AUXILIARY_RESULTS = {"attention": (1,)}


def _same_signature(a, b):
    return a["dtype"] == b["dtype"] and list(a["shape"]) == list(b["shape"])


def _entries(package):
    return {entry["name"]: entry for entry in package.manifest["functions"]}


def _forward_entry(entries, name, package):
    if name not in entries:
        raise Error(f"no function '{name}' in {package.path}; available: "
                    + ", ".join(entries))
    return entries[name]


def _gradient_entry(entries, name, gradient, package):
    """The manifest entry of the function that says it is `name`'s gradient
    (the one named `gradient` when given)."""
    found = [e for e in entries.values() if e.get("gradient_of") == name]
    if gradient is not None:
        found = [e for e in found if e["name"] == gradient]
        if not found:
            raise Error(f"function '{gradient}' of {package.path} is not the "
                        f"gradient of '{name}'")
    if not found:
        raise Error(f"function '{name}' of {package.path} has no gradient "
                    f"function (none says \"gradient_of\": \"{name}\"); mark "
                    f"it attributes {{attn.backward}} or compile with "
                    f"attnc --backward")
    if len(found) > 1:
        raise Error(f"function '{name}' of {package.path} has several "
                    f"gradient functions ("
                    + ", ".join(e["name"] for e in found)
                    + "); pick one with gradient=NAME")
    return found[0]


def _auxiliary_outputs(forward):
    """Names of f's outputs that are auxiliary results of its ops."""
    return {op["results"][i] for op in forward.get("ops", [])
            for i in _AUXILIARY_RESULTS.get(op["kind"], ())
            if i < len(op["results"])}


def _cotangent_outputs(forward, gradient):
    """Indices of f's outputs that take a cotangent, in the order the
    gradient function takes them: the manifest's ``cotangent_of``; in
    packages without it, all outputs when there are as many cotangents,
    else the outputs that are not auxiliary results; either way checked by
    signature."""
    outputs = forward["outputs"]
    cotangents = gradient["inputs"][len(forward["inputs"]) + len(outputs):]
    if "cotangent_of" in gradient:
        indices = list(gradient["cotangent_of"])
    elif len(cotangents) == len(outputs):
        indices = list(range(len(outputs)))
    else:
        auxiliary = _auxiliary_outputs(forward)
        indices = [j for j, o in enumerate(outputs)
                   if o["name"] not in auxiliary]
    if len(indices) != len(cotangents) or not all(
            _same_signature(outputs[j], c) for j, c in zip(indices, cotangents)):
        raise Error(f"cannot tell which outputs of '{forward['name']}' the "
                    f"{len(cotangents)} cotangents of '{gradient['name']}' "
                    f"belong to")
    return indices


def _gradient_inputs(forward, gradient):
    """For each output of the gradient function, the index of f's input it
    is the gradient of: the manifest's ``gradient_of_inputs``; in packages
    without it, output i for input i when there are as many (the
    compiler's rule), else by name ("dq" for "q")."""
    inputs, grads = forward["inputs"], gradient["outputs"]
    if "gradient_of_inputs" in gradient:
        indices = list(gradient["gradient_of_inputs"])
    elif len(grads) == len(inputs):
        indices = list(range(len(inputs)))
    else:
        names = [i["name"] for i in inputs]
        indices = [names.index(g["name"][1:]) if g["name"][1:] in names
                   else None for g in grads]
    if None in indices or not all(
            _same_signature(inputs[i], g) for i, g in zip(indices, grads)):
        raise Error(f"cannot tell which inputs of '{forward['name']}' the "
                    f"outputs of '{gradient['name']}' are the gradients of")
    return indices


class GradientPlan:
    """How a package function ``f`` and its gradient function are called,
    from the manifest alone (no torch):

    * ``forward``, ``gradient``: their ``attnc.Function``s;
    * ``cotangent_outputs``: indices of f's outputs that take a cotangent,
      in the gradient function's order;
    * ``gradient_inputs``: for each output of the gradient function, the
      index of f's input it is the gradient of;
    * ``device``: the device of the runtime that loaded the package."""

    def __init__(self, package, name, gradient=None):
        entries = _entries(package)
        forward = _forward_entry(entries, name, package)
        grad = _gradient_entry(entries, name, gradient, package)
        self._plan(package.function(name), package.function(grad["name"]))

    @classmethod
    def of(cls, function):
        """The plan of an ``attnc.Function`` and the gradient function its
        package holds for it (``Package.function`` opens that one with
        it), or None when the package held none, or several."""
        if function.gradient is None:
            return None
        plan = cls.__new__(cls)
        plan._plan(function, function.gradient)
        return plan

    def _plan(self, forward, gradient):
        self.cotangent_outputs = _cotangent_outputs(forward.entry,
                                                    gradient.entry)
        self.gradient_inputs = _gradient_inputs(forward.entry, gradient.entry)
        self.forward, self.gradient = forward, gradient
        self.device = forward.device

    def check_cotangents(self, cotangents):
        """Raises Error when an output that takes no cotangent has one (a
        loss that depends on attention's lse); None means "none"."""
        for j, cotangent in enumerate(cotangents):
            if cotangent is not None and j not in self.cotangent_outputs:
                output = self.forward.signature.outputs[j].name
                raise Error(
                    f"gradient through output '{output}' of "
                    f"'{self.forward.name}' is not supported: its gradient "
                    f"function '{self.gradient.name}' takes no cotangent for "
                    f"it (attention's lse is auxiliary); detach it or keep it "
                    f"out of the loss")

    def gradient_arguments(self, inputs, outputs, cotangents, zeros):
        """The gradient function's inputs: f's `inputs`, its `outputs`, then
        the cotangent of each output that takes one; ``zeros(j)`` stands in
        for a cotangent that is None (output j did not reach the loss).
        Cotangents of outputs that take none are left out (see
        check_cotangents)."""
        taken = [zeros(j) if cotangents[j] is None else cotangents[j]
                 for j in self.cotangent_outputs]
        return [*inputs, *outputs, *taken]

    def input_gradients(self, gradients):
        """One gradient per input of f, None for an input without one."""
        result = [None] * len(self.forward.signature.inputs)
        for index, gradient in zip(self.gradient_inputs, gradients):
            result[index] = gradient
        return tuple(result)

    def __repr__(self):
        return (f"attnc.GradientPlan({self.forward.name!r} -> "
                f"{self.gradient.name!r})")
