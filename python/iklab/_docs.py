"""Docstrings from the C++ headers: the comment above each field of an
options or result struct (with its default), the comment above each struct,
and, in each solver's docstring, the options it takes as keywords. The text
is extracted at build time into _header_docs.py (python/tools/header_docs.py)
so that Python and C++ read the same words."""

import re


def _python_default(text):
    """The C++ default as Python spells it (true -> True, Enum::kName ->
    Enum.NAME)."""
    text = {"true": "True", "false": "False"}.get(text, text)
    # Eigen and <limits> constants as values.
    unit = re.fullmatch(r"(-?)Eigen::Vector3d::Unit([XYZ])\(\)", text)
    if unit:
        axis = ["0", "0", "0"]
        axis["XYZ".index(unit.group(2))] = unit.group(1) + "1"
        return "[" + ", ".join(axis) + "]"
    if re.fullmatch(r"(?:Eigen::)?\w+::Zero\(\)", text):
        return "zeros"
    if re.fullmatch(r"Eigen::\w+::Identity\(\)", text):
        return "identity"
    limit = re.fullmatch(r"(-?)std::numeric_limits<double>::(infinity|quiet_NaN)\(\)", text)
    if limit:
        return limit.group(1) + ("inf" if limit.group(2) == "infinity" else "nan")
    return re.sub(r"(\w+)::k(\w+)",
                  lambda m: m.group(1) + "." + re.sub(r"(?<!^)(?=[A-Z])", "_",
                                                      m.group(2)).upper(), text)


def _field_doc(doc, default):
    text = doc
    if default:
        text += (" " if text else "") + f"Default: {_python_default(default)}."
    return text


def _option_lines(options_class, prefix=""):
    """`name: doc` per option, the solver's own first, then the shared
    SolveOptions (common) and StepControl (step) fields."""
    own, shared = [], []
    for name in sorted(vars(options_class)):
        attribute = vars(options_class)[name]
        if name.startswith("_") or not isinstance(attribute, property):
            continue
        if name in ("common", "step"):
            shared += _option_lines(type(getattr(options_class(), name)), prefix)
            continue
        doc = (attribute.__doc__ or "").replace("\n", "\n" + prefix + "    ")
        own.append(f"{prefix}{name}: {doc}")
    return own + shared


# Members every options class or enum has, documented once here.
_COMMON_MEMBERS = {
    "common": "The options every solver shares (a SolveOptions); its fields are also "
              "keyword arguments of the solver.",
    "step": "Step control of the differential solvers (a StepControl); its fields are also "
            "keyword arguments of the solver.",
}


_SIGNATURE = re.compile(r"^(?:\d+\. )?\w+\(.*\)(?: -> .+)?$")


def _undocumented(obj):
    """True when obj's docstring is empty or only pybind11's signature."""
    return not any(line.strip() and not _SIGNATURE.match(line.strip())
                   for line in (getattr(obj, "__doc__", None) or "").splitlines())


def _document_enum(cls):
    for field, text in (("name", "The enumerator's name, e.g. 'CONVERGED'."),
                        ("value", "The enumerator's integer value.")):
        attribute = vars(cls).get(field)
        if isinstance(attribute, property) and _undocumented(attribute):
            setattr(cls, field, property(attribute.fget, attribute.fset, attribute.fdel, text))


def apply(namespace):
    try:
        from ._header_docs import DOCS
    except ImportError:  # a build without the generated file
        return
    for name, cls in list(namespace.items()):
        if not isinstance(cls, type):
            continue
        if isinstance(getattr(cls, "__members__", None), dict):
            _document_enum(cls)
        for field in ("common", "step"):
            attribute = vars(cls).get(field)
            if isinstance(attribute, property) and _undocumented(attribute):
                setattr(cls, field, property(attribute.fget, attribute.fset, attribute.fdel,
                                             _COMMON_MEMBERS[field]))
        if name not in DOCS:
            continue
        entry = DOCS[name]
        if entry.get(""):
            # The binding's one line (if any), then the header's comment.
            cls.__doc__ = (entry[""] if _undocumented(cls)
                           else cls.__doc__.rstrip() + "\n\n" + entry[""])
        for field, value in entry.items():
            if not field:
                continue
            doc, default = value
            attribute = vars(cls).get(field)
            if not isinstance(attribute, property):
                continue
            if not _undocumented(attribute):
                # The binding's own text; an option still shows its default.
                if default and name.endswith(("Options", "Control")) \
                        and "Default:" not in attribute.__doc__:
                    setattr(cls, field, property(attribute.fget, attribute.fset, attribute.fdel,
                                                 _field_doc(attribute.__doc__.rstrip(), default)))
                continue
            text = _field_doc(doc, default)
            if text:
                setattr(cls, field, property(attribute.fget, attribute.fset,
                                             attribute.fdel, text))
    for name, cls in list(namespace.items()):
        options = getattr(cls, "Options", None) if isinstance(cls, type) else None
        if isinstance(options, type) and name.endswith("Solver"):
            cls.__doc__ = ((cls.__doc__ or "").rstrip() + "\n\n"
                           f"{name}(options: {options.__name__} | None = None, **kwargs): "
                           f"the options below as keyword arguments, or a {options.__name__}.\n\n"
                           "Options:\n" + "\n".join(_option_lines(options, "    ")))
