"""A project's onlooker config: `.onlooker/config.yaml` (or `onlooker.yaml`); see specs/config.md.

`load_project(cwd)` gives the ProjectConfig of the project `cwd` belongs to; `load_config(path)`
reads one file; both raise ConfigInvalid listing every problem (file, line, key, what is allowed).
`ProjectConfigs` keeps them loaded for the hook path. PyYAML (the `config` extra) is imported only
when a file is read.
"""

from ..store.home import project_root
from .cache import Loaded, ProjectConfigs
from .document import ConfigInvalid, Problem
from .loading import CONFIG_FILES, find_config, load_config, load_project
from .project import HookSpec, IssueFiling, Module, ProjectConfig, TrajectoryOptions

__all__ = [
    "CONFIG_FILES",
    "ConfigInvalid",
    "HookSpec",
    "IssueFiling",
    "Loaded",
    "Module",
    "Problem",
    "ProjectConfig",
    "ProjectConfigs",
    "TrajectoryOptions",
    "find_config",
    "load_config",
    "load_project",
    "project_root",
]
