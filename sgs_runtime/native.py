"""What the compiled build (setup.py, ``SGS_COMPILE=1``) needs to be told about a class.

:func:`mypyc_attr` is mypyc's class decorator when mypy_extensions is installed (it is
wherever mypy is, so wherever the build is compiled) and does nothing otherwise: the
pure build needs neither. The runtime uses it for the classes people extend or copy:

* ``allow_interpreted_subclasses=True``: a class written in Python may extend the
  compiled class and override its methods (a custom bot on :class:`HeuristicAgent`);
* ``serializable=True``: ``copy.deepcopy`` and pickle work on its objects.

>>> @mypyc_attr(allow_interpreted_subclasses=True)
... class Example:
...     pass
>>> Example.__name__
'Example'
"""

from __future__ import annotations

from typing import Any, Callable, TypeVar

_C = TypeVar("_C")

try:
    from mypy_extensions import mypyc_attr
except ImportError:  # pragma: no cover - the pure build without mypy installed

    def mypyc_attr(*_args: Any, **_options: Any) -> Callable[[_C], _C]:  # type: ignore[misc]
        """Nothing, without mypyc: the class as it is."""
        return lambda cls: cls


__all__ = ["mypyc_attr"]
