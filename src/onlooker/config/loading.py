"""Finding and loading a project's config file: `.onlooker/config.yaml`, else `onlooker.yaml`.

The project root is the nearest folder at or above the working directory with a project marker
(.onlooker, onlooker.yaml, .git), as for the store's project names.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import ConfigError
from ..store.home import project_root
from .document import compose
from .project import ProjectConfig
from .schema import read_document

CONFIG_FILES = (Path(".onlooker") / "config.yaml", Path("onlooker.yaml"))
"""Where a project's config lives, relative to its root, in the order they are looked for."""


def find_config(root: Path) -> Path | None:
    """The project's config file, or None when it has none."""
    for name in CONFIG_FILES:
        if (root / name).is_file():
            return root / name
    return None


def load_config(path: str | os.PathLike[str], root: Path | None = None) -> ProjectConfig:
    """Read and validate one config file; ConfigInvalid names every problem with its line.

    `root` is the project it configures (default: the folder holding `.onlooker/`, or the file's
    own folder).
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the config file: {exc}") from None
    if root is None:
        root = path.parent.parent if path.parent.name == ".onlooker" else path.parent
    try:
        import yaml  # noqa: F401
    except ImportError:
        raise ConfigError(
            f"{path}: reading a config file needs PyYAML: pip install 'onlooker[config]'"
        ) from None
    node = compose(text, str(path))
    return read_document(node, file=str(path), root=root.absolute(), path=path.absolute())


def load_project(cwd: str | os.PathLike[str] = ".") -> ProjectConfig:
    """The config of the project `cwd` belongs to; defaults when it has no config file."""
    root = project_root(cwd)
    path = find_config(root)
    return load_config(path, root) if path else ProjectConfig(root=root)
