"""LLMs for observers: the Model protocol, providers chosen by a model string, usage and cost.

Provider SDKs (openai, anthropic, llama-cpp-python) are extras, imported only when a provider is
built.
"""

from .model import (
    Completion,
    InvalidOutput,
    Message,
    Model,
    ModelError,
    ModelTimeout,
    ModelUnavailable,
    ProviderSetupError,
    Usage,
)

__all__ = [
    "Completion",
    "InvalidOutput",
    "Message",
    "Model",
    "ModelError",
    "ModelTimeout",
    "ModelUnavailable",
    "ProviderSetupError",
    "Usage",
]
