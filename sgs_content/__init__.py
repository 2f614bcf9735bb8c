"""The built-in content: the top-level cards/, heroes/ and rules/ folders.

In a source checkout they are found beside this package; in an installed
package they are shipped as ``sgs_content/cards`` and so on.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["content_root"]


def content_root() -> Path:
    """The folder holding cards/, heroes/ and rules/."""
    here = Path(__file__).resolve().parent
    if (here / "rules").is_dir():  # installed: the folders were copied into the package
        return here
    return here.parent  # source checkout or editable install
