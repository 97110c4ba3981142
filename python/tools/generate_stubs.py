"""Writes the type stubs (.pyi) of the compiled module iklab._iklab from the
module itself: pybind11 puts each function's signature on the first line(s)
of its docstring, which this turns into Python stub syntax (pybind11-stubgen
is not packaged by Debian 12). Run at build time; tests/python/test_api.py
checks that the shipped stubs equal a fresh run.

    python3 generate_stubs.py OUTPUT.pyi     # with the package on PYTHONPATH
"""

import inspect
import re
import sys

import iklab  # applies the header docstrings (iklab/_docs.py)
from iklab import _iklab

MODULE = "iklab._iklab."


def replace_arrays(text):
    """numpy.ndarray[numpy.float64[3, 1]] -> numpy.typing.NDArray[numpy.float64]
    (the shape stays in the docstring's signature)."""
    out = ""
    while True:
        start = text.find("numpy.ndarray[")
        if start < 0:
            return out + text
        depth, end = 0, start + len("numpy.ndarray")
        for end in range(start + len("numpy.ndarray"), len(text)):
            depth += {"[": 1, "]": -1}.get(text[end], 0)
            if depth == 0:
                break
        inner = text[start + len("numpy.ndarray["):end]
        dtype = re.match(r"(numpy\.\w+)", inner)
        out += text[:start] + f"numpy.typing.NDArray[{dtype.group(1) if dtype else 'typing.Any'}]"
        text = text[end + 1:]


def annotation(text):
    """A pybind11 type name as a stub annotation."""
    text = text.strip()
    text = text.replace(MODULE, "")
    text = replace_arrays(text)
    text = re.sub(r"\bhandle\b", "typing.Any", text)
    text = re.sub(r"\bobject\b", "typing.Any", text)
    text = re.sub(r"\b(List|Dict|Tuple|Optional|Callable|Union)\[", r"typing.\1[", text)
    text = text.replace("os.PathLike", "typing.Any")
    text = re.sub(r"\biklab::(\w+)", r"\1", text)
    if "::" in text:  # a C++ type pybind11 could not name
        text = "typing.Any"
    return text


# Parameters bound as py::handle (converted and checked in C++), by name.
HANDLE_PARAMETERS = {
    "site": "typing.Union[str, int]", "other_site": "typing.Union[str, int]",
    "threads": "typing.Optional[int]",
}
POSE_LIKE = "PoseLike"


def handle_annotation(name):
    if name in HANDLE_PARAMETERS:
        return HANDLE_PARAMETERS[name]
    if name.startswith("X_") or "pose" in name:
        return POSE_LIKE
    return "numpy.typing.ArrayLike"


def argument_annotation(text):
    """A parameter's annotation: the array shapes the signature names
    (numpy.ndarray[numpy.float64[B, 7]]) accept anything NumPy converts, so
    they are ArrayLike (a pose: PoseLike); other types as annotation()."""
    text = text.strip()
    if "quaternion_wxyz" in text:
        return POSE_LIKE
    if text.startswith("numpy.ndarray["):
        rest = [part.strip() for part in split_arguments(text.replace("|", ","))
                if not part.strip().startswith("numpy.ndarray[")]
        if not rest:
            return "numpy.typing.ArrayLike"
        return ("typing.Union[numpy.typing.ArrayLike, "
                + ", ".join(annotation(part) for part in rest) + "]")
    return annotation(text)


def split_arguments(text):
    parts, depth, current = [], 0, ""
    for char in text:
        if char in "[(<":
            depth += 1
        elif char in "])>":
            depth -= 1
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    if current.strip():
        parts.append(current)
    return parts


def stub_arguments(text, self_name=None):
    out = []
    for i, part in enumerate(split_arguments(text)):
        part = part.strip()
        if part in ("*", "/") or part.startswith("*"):
            name = part.split(":")[0].strip()
            out.append(name if name in ("*", "/") else f"{name}: typing.Any")
            continue
        name, _, rest = part.partition(":")
        kind, eq, _default = rest.partition("=")
        name = name.strip()
        if i == 0 and self_name is not None and name == "self":
            out.append("self")
            continue
        kind_text = (handle_annotation(name) if kind.strip() in ("handle", "object")
                     else argument_annotation(kind))
        out.append(f"{name}: {kind_text}" + (" = ..." if eq else ""))
    return ", ".join(out)


SIGNATURE = re.compile(r"^(?:\d+\. )?(\w+)\((.*)\)(?: -> (.+))?$")


def signatures(obj, name):
    """[(arguments, return)] from a pybind11 docstring."""
    doc = obj.__doc__ or ""
    found = []
    for line in doc.splitlines():
        match = SIGNATURE.match(line.strip())
        if match and match.group(1) == name:
            found.append((match.group(2), match.group(3) or "None"))
    return found


def doc_body(obj):
    """The docstring without pybind11's signature lines."""
    lines = [line for line in (obj.__doc__ or "").splitlines()
             if not SIGNATURE.match(line.strip()) and line.strip() != "Overloaded function."]
    return "\n".join(lines).strip()


def quoted(doc, indent):
    if not doc:
        return []
    doc = doc.replace("\\", "\\\\").replace('"', '\\"')
    return [f'{indent}"""{doc}"""'.replace("\n", "\n" + indent)]


def function_stub(obj, name, indent="", method=False, static=False):
    lines = []
    sigs = signatures(obj, name) or [("*args, **kwargs", "typing.Any")]
    for arguments, returns in sigs:
        if len(sigs) > 1:
            lines.append(f"{indent}@typing.overload")
        if static:
            lines.append(f"{indent}@staticmethod")
        args = stub_arguments(arguments, "self" if method and not static else None)
        lines.append(f"{indent}def {name}({args}) -> {annotation(returns)}:")
        body = quoted(doc_body(obj), indent + "    ")
        lines += body if body else []
        lines.append(f"{indent}    ...")
    return lines


def class_stub(cls):
    bases = [b.__name__ for b in cls.__bases__ if b.__module__ == "iklab._iklab"]
    lines = [f"class {cls.__name__}({', '.join(bases)}):" if bases else f"class {cls.__name__}:"]
    lines += quoted((cls.__doc__ or "").strip(), "    ")
    members = getattr(cls, "__members__", None)
    if isinstance(members, dict):
        for member in members:
            lines.append(f"    {member}: typing.ClassVar[{cls.__name__}]")
    for name, attribute in sorted(vars(cls).items()):
        if name.startswith("_") and name not in ("__init__", "__len__", "__iter__",
                                                 "__getitem__", "__call__", "__eq__",
                                                 "__int__", "__index__"):
            continue
        if isinstance(attribute, type):
            lines.append(f"    {name}: typing.ClassVar[type]")
        elif isinstance(attribute, property):
            sigs = signatures(attribute.fget, "") or []
            returns = "typing.Any"
            match = re.search(r"\) -> (.+)$", (attribute.fget.__doc__ or "").splitlines()[0]
                              if attribute.fget and attribute.fget.__doc__ else "")
            if match:
                returns = annotation(match.group(1))
            lines.append("    @property")
            lines.append(f"    def {name}(self) -> {returns}:")
            lines += quoted((attribute.__doc__ or "").strip(), "        ")
            lines.append("        ...")
            if attribute.fset is not None:
                lines.append(f"    @{name}.setter")
                lines.append(f"    def {name}(self, value: {returns}) -> None: ...")
        elif isinstance(attribute, staticmethod):
            lines += function_stub(attribute.__func__, name, "    ", static=True)
        elif callable(attribute) and not isinstance(attribute, (int, float)):
            lines += function_stub(attribute, name, "    ", method=True)
        elif isinstance(members, dict) and name in members:
            continue
    if len(lines) == 1:
        lines.append("    ...")
    return lines


def generate():
    lines = ['"""Type stubs of iklab._iklab (generated by python/tools/generate_stubs.py; '
             'do not edit)."""', "", "import typing", "", "import numpy", "import numpy.typing",
             "",
             "# A pose: a 4 x 4 homogeneous matrix, or (position[3], quaternion[4] in the",
             "# order w, x, y, z).",
             f"{POSE_LIKE} = typing.Union[numpy.typing.ArrayLike,",
             "                         typing.Tuple[numpy.typing.ArrayLike, numpy.typing.ArrayLike]]",
             "", "__version__: str", ""]
    names = sorted(n for n in vars(_iklab) if not n.startswith("_"))
    for name in names:
        obj = getattr(_iklab, name)
        if isinstance(obj, type):
            lines += class_stub(obj) + [""]
    for name in names:
        obj = getattr(_iklab, name)
        if not isinstance(obj, type) and callable(obj):
            lines += function_stub(obj, name) + [""]
    return "\n".join(lines).rstrip() + "\n"


def main():
    text = generate()
    with open(sys.argv[1], "w", encoding="utf-8") as out:
        out.write(text)


if __name__ == "__main__":
    main()
