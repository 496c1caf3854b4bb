"""LLMs for observers: the Model protocol, providers chosen by a model string, usage and cost.

Provider SDKs (openai, anthropic, llama-cpp-python) are extras, imported only when a provider is
built.
"""

from ..errors import InvalidOutput, ModelError, ModelTimeout, ModelUnavailable, ProviderSetupError
from .model import Completion, Message, Model, Usage
from .pricing import estimate_cost
from .providers import model_from_string

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
    "estimate_cost",
    "model_from_string",
]
