"""What a handler accepts, read from its own declaration, and whether it takes a given arguments object.

A handler is one of five kinds, told apart in this order:

- ``pydantic``: a ``BaseModel`` subclass; fields from ``model_fields`` (the key is the field's validation alias or
  alias when it has one), extra keys as ``model_config["extra"]`` says (``ignore`` by default).
- ``attrs``: a class with ``__attrs_attrs__``; the ``__init__`` fields (the key is the attribute's ``alias``, so
  ``_private`` is ``private``); unknown keys are refused (``TypeError``).
- ``dataclass``: a dataclass (pydantic dataclasses included); the ``__init__`` parameters, ``InitVar`` included;
  unknown keys are refused (pydantic dataclasses: as their config says).
- ``typeddict``: a ``TypedDict``; each key is required as ``Required``/``NotRequired`` says, else as the class's
  totality says; extra keys ride along unseen (``ignore``).
- ``function``: any other callable (a function, method, ``functools.partial``, callable object); parameters by
  keyword, ``**kwargs`` accepting any key, unknown keys otherwise refused. A positional-only parameter without a
  default cannot be filled from a JSON object, so it is a ``TypeError`` (bind it with ``functools.partial``).

``construct`` builds an arguments object through the handler's own type, never calling a function: a model is
``Model(**args)``; a dataclass or attrs class ``Class(**args)``; a function ``inspect.signature(fn).bind(**args)``;
a TypedDict checks its required keys. Then, for every kind but pydantic's (which validated already), each value is
validated against its annotation by a pydantic ``TypeAdapter`` in strict JSON mode: the value as the handler gets
it from ``json.loads``, with no coercion (``"5"`` is no ``int``, ``1`` is a ``float``, ``"red"`` is a ``Color``).
A value pydantic cannot describe (an attrs class, a ``typing.TypedDict`` before Python 3.12) is built through its own
class when the annotation is that class (``Optional`` allowed), and is not checked inside other containers.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import inspect
import json
import sys
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, get_args, get_origin, get_type_hints

__all__ = [
    "NO_DEFAULT",
    "Handler",
    "HandlerKind",
    "Param",
    "Problem",
    "check_value",
    "class_kind",
    "construct",
    "describe",
    "is_union",
]

HandlerKind = Literal["function", "dataclass", "pydantic", "typeddict", "attrs"]
"""The kinds of handler ``describe`` reads."""

Extra = Literal["accept", "ignore", "refuse"]
"""What a handler does with a key it does not declare: takes it, drops it silently, or fails."""

Problem = tuple[tuple[str | int, ...], str]
"""Why a handler refuses an arguments object: the location inside the arguments, and the handler's error."""


class _NoDefault:
    """The marker of a parameter without a default."""

    def __repr__(self) -> str:
        return "NO_DEFAULT"


#: The ``Param.default`` of a parameter without a default (or whose default is computed by a factory).
NO_DEFAULT: Final = _NoDefault()

_MARKER_NAMES: Final = frozenset({"Required", "NotRequired", "ReadOnly", "ClassVar", "Final"})


@dataclass(frozen=True)
class Param:
    """One argument a handler takes.

    Attributes:
        key: The key the argument has in the JSON arguments object.
        annotation: Its type (``typing.Any`` when unannotated).
        required: Whether the handler fails without it.
        default: Its default, or ``NO_DEFAULT``.
        factory: The callable that makes its default, when it has one (a dataclass ``default_factory``...).
    """

    key: str
    annotation: Any
    required: bool
    default: Any = NO_DEFAULT
    factory: Callable[[], Any] | None = None

    def has_default(self) -> bool:
        """Whether the handler fills the argument in itself when it is left out."""
        return self.default is not NO_DEFAULT or self.factory is not None

    def default_value(self) -> Any:
        """The default the handler applies (a factory is called)."""
        return self.factory() if self.factory is not None else self.default


@dataclass(frozen=True)
class Handler:
    """A handler as ``describe`` read it.

    Attributes:
        kind: Which of the five kinds it is.
        name: Its qualified name, for messages.
        target: The object itself.
        params: What it takes, in declaration order.
        extra: What it does with a key it does not declare.
    """

    kind: HandlerKind
    name: str
    target: Any
    params: tuple[Param, ...]
    extra: Extra

    @property
    def short(self) -> str:
        """The name without its module, as fields are named in messages (``RefundArgs.amount``)."""
        return self.name.rsplit(".", 1)[-1]

    def param(self, key: str) -> Param | None:
        """The parameter with this JSON key."""
        return next((param for param in self.params if param.key == key), None)


def _pydantic() -> Any:
    try:
        return importlib.import_module("pydantic")
    except ImportError as error:  # pragma: no cover - pydantic is in the `schema` extra
        raise ImportError("checking handlers needs pydantic (pip install 'toolwire[schema]')") from error


def class_kind(obj: object) -> HandlerKind | None:
    """The kind of a handler *class* (``None`` for anything else, functions included)."""
    if not isinstance(obj, type):
        return None
    pydantic = sys.modules.get("pydantic")
    if pydantic is not None and issubclass(obj, pydantic.BaseModel):
        return "pydantic"
    if hasattr(obj, "__attrs_attrs__"):
        return "attrs"
    if dataclasses.is_dataclass(obj):
        return "dataclass"
    if issubclass(obj, dict) and hasattr(obj, "__required_keys__") and hasattr(obj, "__total__"):
        return "typeddict"
    return None


def _qualname(obj: object) -> str:
    target = obj.func if isinstance(obj, functools.partial) else obj
    name = getattr(target, "__qualname__", None) or type(target).__qualname__
    module = getattr(target, "__module__", None)
    return f"{module}.{name}" if module else str(name)


def _hints(obj: object, name: str) -> dict[str, Any]:
    """Resolved annotations; a name that cannot be resolved is a ``TypeError`` naming the handler."""
    try:
        return get_type_hints(obj, include_extras=True)
    except (NameError, TypeError, AttributeError) as error:
        raise TypeError(f"{name}: cannot resolve the annotations ({error}); import the names they use") from error


def _marker(hint: Any) -> str | None:
    """``Required``/``NotRequired`` when the annotation is wrapped in one (through ``Annotated`` too)."""
    while True:
        origin = get_origin(hint)
        if origin is typing.Annotated:
            hint = get_args(hint)[0]
            continue
        name = getattr(origin, "_name", None)
        if name in ("Required", "NotRequired"):
            return str(name)
        if name in _MARKER_NAMES and get_args(hint):
            hint = get_args(hint)[0]
            continue
        return None


def _extra(setting: object) -> Extra:
    """A pydantic ``extra`` setting as what happens to an unknown key."""
    if setting == "allow":
        return "accept"
    return "refuse" if setting == "forbid" else "ignore"


def _model(cls: type[Any], name: str) -> Handler:
    pydantic_core = importlib.import_module("pydantic_core")
    params = []
    for field_name, info in cls.model_fields.items():
        alias = info.validation_alias if isinstance(info.validation_alias, str) else info.alias
        required = info.is_required()
        default = NO_DEFAULT if required or info.default is pydantic_core.PydanticUndefined else info.default
        # A factory that takes the validated data cannot be called on its own.
        takes_data = getattr(info, "default_factory_takes_data", False)
        factory = info.default_factory if info.default_factory is not None and not takes_data else None
        params.append(Param(alias or field_name, info.annotation, required, default, factory))
    return Handler("pydantic", name, cls, tuple(params), _extra(cls.model_config.get("extra")))


def _attrs(cls: type[Any], name: str) -> Handler:
    attrs = importlib.import_module("attrs")
    hints = _hints(cls, name)
    params = []
    for attribute in attrs.fields(cls):
        if not attribute.init:
            continue
        key = getattr(attribute, "alias", None) or attribute.name.lstrip("_")
        declared = attribute.default
        required = declared is attrs.NOTHING
        default: Any = NO_DEFAULT if required or isinstance(declared, attrs.Factory) else declared
        # A factory that takes the instance cannot be called on its own: the field is optional, its default unknown.
        takes_self = isinstance(declared, attrs.Factory) and declared.takes_self
        factory = declared.factory if isinstance(declared, attrs.Factory) and not takes_self else None
        params.append(Param(key, hints.get(attribute.name, attribute.type or Any), required, default, factory))
    return Handler("attrs", name, cls, tuple(params), "refuse")


def _dataclass(cls: type[Any], name: str) -> Handler:
    hints = _hints(cls, name)
    declared = getattr(cls, "__dataclass_fields__", {})
    params = []
    extra: Extra = "refuse"
    pydantic_config = getattr(cls, "__pydantic_config__", None)
    if isinstance(pydantic_config, Mapping):
        extra = _extra(pydantic_config.get("extra"))
    for parameter in inspect.signature(cls).parameters.values():
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:
            extra = "accept"
            continue
        field = declared.get(parameter.name)
        default: Any = NO_DEFAULT
        factory = None
        if field is not None:
            default = NO_DEFAULT if field.default is dataclasses.MISSING else field.default
            factory = None if field.default_factory is dataclasses.MISSING else field.default_factory
        elif parameter.default is not inspect.Parameter.empty:
            default = parameter.default
        annotation = hints.get(parameter.name, Any)
        params.append(Param(parameter.name, annotation, default is NO_DEFAULT and factory is None, default, factory))
    return Handler("dataclass", name, cls, tuple(params), extra)


def _typeddict(cls: type[Any], name: str) -> Handler:
    params = []
    for key, hint in _hints(cls, name).items():
        # The explicit marker wins: under `from __future__ import annotations` the class's own required keys
        # miss it (the annotations are strings when the class is made).
        marker = _marker(hint)
        required = marker == "Required" if marker else key in cls.__required_keys__
        params.append(Param(key, hint, required))
    return Handler("typeddict", name, cls, tuple(params), "ignore")


def _function(obj: Callable[..., Any], name: str) -> Handler:
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError) as error:
        raise TypeError(f"{name}: cannot read the signature: {error}") from error
    target: Any = obj.func if isinstance(obj, functools.partial) else obj
    if isinstance(target, type):
        target = typing.cast(Any, target).__init__
    elif not (inspect.isfunction(target) or inspect.ismethod(target)) and callable(target):
        target = type(target).__call__
    hints = _hints(target, name)
    params = []
    extra: Extra = "refuse"
    for parameter in signature.parameters.values():
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:
            extra = "accept"
        elif parameter.kind is inspect.Parameter.POSITIONAL_ONLY and parameter.default is inspect.Parameter.empty:
            raise TypeError(
                f"{name}: parameter {parameter.name!r} is positional-only, but tool arguments arrive as a JSON "
                "object passed by keyword; make it a regular parameter or bind it with functools.partial"
            )
        elif parameter.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY):
            empty = parameter.default is inspect.Parameter.empty
            default = NO_DEFAULT if empty else parameter.default
            params.append(Param(parameter.name, hints.get(parameter.name, Any), empty, default))
    return Handler("function", name, obj, tuple(params), extra)


def describe(handler: object) -> Handler:
    """Read what a handler accepts.

    Args:
        handler: A function (or other callable), dataclass, pydantic model, TypedDict or attrs class.

    Returns:
        Its parameters, their requiredness, annotations and defaults, and what it does with unknown keys.

    Raises:
        TypeError: It is none of these, its annotations cannot be resolved, or a function has a required
            positional-only parameter.
    """
    name = _qualname(handler)
    kind = class_kind(handler)
    if kind == "pydantic":
        return _model(typing.cast(type[Any], handler), name)
    if kind == "attrs":
        return _attrs(typing.cast(type[Any], handler), name)
    if kind == "dataclass":
        return _dataclass(typing.cast(type[Any], handler), name)
    if kind == "typeddict":
        return _typeddict(typing.cast(type[Any], handler), name)
    if callable(handler):
        return _function(handler, name)
    raise TypeError(
        f"a handler is a function, dataclass, pydantic model, TypedDict or attrs class; got {type(handler).__name__}"
    )


def _pydantic_problems(error: Any) -> list[Problem]:
    return [(tuple(detail["loc"]), str(detail["msg"])) for detail in error.errors()]


@functools.lru_cache(maxsize=512)
def _adapter(annotation: Any) -> Any:
    """A pydantic ``TypeAdapter`` for the annotation, or None when pydantic cannot make one (an attrs class...)."""
    pydantic = _pydantic()
    try:
        return pydantic.TypeAdapter(annotation)
    except (pydantic.PydanticUserError, TypeError, NameError, ValueError):
        return None


def _single_class(annotation: Any) -> type[Any] | None:
    """The one handler class an annotation names, ``Optional`` and ``Annotated`` unwrapped."""
    while get_origin(annotation) is typing.Annotated:
        annotation = get_args(annotation)[0]
    members = [m for m in get_args(annotation) if m is not type(None)] if is_union(annotation) else [annotation]
    return members[0] if len(members) == 1 and class_kind(members[0]) else None


def is_union(annotation: Any) -> bool:
    """Whether the annotation is a ``Union``/``Optional``/``X | Y``."""
    origin = get_origin(annotation)
    return origin is typing.Union or (origin is not None and getattr(origin, "__name__", "") == "UnionType")


def check_value(annotation: Any, value: Any) -> list[Problem]:
    """Whether a JSON value fits an annotation, as the handler gets it (strict JSON mode, no coercion)."""
    try:
        adapter = _adapter(annotation)
    except TypeError:  # an unhashable annotation (Annotated metadata that is a dict...) is not cached
        adapter = _adapter.__wrapped__(annotation)
    if adapter is None:
        inner = _single_class(annotation)
        if inner is not None and isinstance(value, Mapping):
            return construct(describe(inner), value)
        return []
    pydantic = _pydantic()
    try:
        adapter.validate_json(json.dumps(value, default=str), strict=True)
    except pydantic.ValidationError as error:
        return _pydantic_problems(error)
    return []


def _call(factory: Callable[..., Any], args: Mapping[str, Any]) -> list[Problem]:
    pydantic = _pydantic()
    try:
        factory(**args)
    except pydantic.ValidationError as error:
        return _pydantic_problems(error)
    # The handler's own __init__/__post_init__/validators may raise anything; that is the refusal being reported.
    except Exception as error:
        return [((), f"{type(error).__name__}: {error}")]
    return []


def construct(handler: Handler, args: Mapping[str, Any]) -> list[Problem]:
    """Build the arguments through the handler's own type (see the module docstring); no function is called.

    Args:
        handler: From ``describe``.
        args: A JSON arguments object.

    Returns:
        Why the handler refuses the arguments; empty when it takes them.
    """
    if handler.kind == "pydantic":
        return _call(handler.target, args)
    if handler.kind in ("dataclass", "attrs"):
        problems = _call(handler.target, args)
        if problems or getattr(handler.target, "__pydantic_validator__", None) is not None:
            return problems
    elif handler.kind == "typeddict":
        missing = [param.key for param in handler.params if param.required and param.key not in args]
        if missing:
            return [((key,), "Field required") for key in missing]
    else:
        try:
            inspect.signature(handler.target).bind(**args)
        except TypeError as error:
            return [((), f"TypeError: {error}")]
    problems = []
    for param in handler.params:
        if param.key in args:
            problems += [
                ((param.key, *loc), message) for loc, message in check_value(param.annotation, args[param.key])
            ]
    return problems
