"""OpenAI Agents SDK: RunHooks record each tool call; a model-input filter delivers the feedback.

`OnlookerAgentsHooks(engine)` is both the `RunHooks` for `Runner.run(..., hooks=...)` and the
`call_model_input_filter` for `RunConfig`; `onlooker_run_config(engine)` wires both at once.
"""

from __future__ import annotations

import copy
import logging
import os
from collections.abc import Mapping
from typing import Any

try:
    from agents import RunConfig, RunHooks
    from agents.run_config import CallModelData, ModelInputData
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "onlooker.hosts.sdk.openai_agents needs the OpenAI Agents SDK: "
        "pip install 'onlooker[openai-agents]'"
    ) from exc

from ...core.engine import Engine
from ...core.events import SessionStarted, TurnEnded
from ...core.session import SessionInfo
from ...runtime import Arrival, Runtime
from ._tool_loop import afeedback_for, tool_call_event, with_feedback

__all__ = ["TOOL_ERROR_PREFIXES", "OnlookerAgentsHooks", "onlooker_run_config"]

log = logging.getLogger(__name__)

#: How a function tool's failure reads when the SDK turned the exception into the tool's output
#: (its default `failure_error_function`); such a result is recorded as a failed call.
TOOL_ERROR_PREFIXES: tuple[str, ...] = ("An error occurred while running the tool",)


class OnlookerAgentsHooks(RunHooks[Any]):
    """Feeds a Runner's tool calls to an engine and puts the feedback into the next model input.

    After each tool call the engine's feedback is kept by call id; before each model call the
    filter appends it to that call's `function_call_output` (the OpenAI-style delivery: the tool
    result, a blank line, the feedback). It is applied on every later model call too, so the
    history the model sees stays the same from turn to turn. A hook never raises into the run:
    an error is logged and the run goes on without feedback.
    """

    def __init__(self, engine: Engine, *, error_prefixes: tuple[str, ...] = TOOL_ERROR_PREFIXES):
        self.engine = engine
        self.runtime = Runtime.around(engine)
        self.error_prefixes = error_prefixes
        self.feedback: dict[str, str] = {}
        """Feedback to deliver, by tool call id."""
        self._started: dict[str, float] = {}

    # -- RunHooks ------------------------------------------------------------------------------

    async def on_agent_start(self, context: Any, agent: Any) -> None:
        if self.engine.session[SessionInfo].latest() is not None:
            return
        try:
            cwd = os.getcwd()
            started = SessionStarted(
                at=self.engine.clock.now(),
                cwd=cwd,
                project=os.path.basename(cwd),
                agent_name=str(getattr(agent, "name", "")),
                host="openai-agents",
            )
            await self.runtime.ahandle(Arrival(started, self.engine.session.id, cwd=cwd))
        except Exception:
            log.exception("onlooker: recording the agent's start failed")

    async def on_tool_start(self, context: Any, agent: Any, tool: Any) -> None:
        call_id = getattr(context, "tool_call_id", None)
        if isinstance(call_id, str):
            self._started[call_id] = self.engine.clock.now().timestamp()

    async def on_tool_end(self, context: Any, agent: Any, tool: Any, result: object) -> None:
        try:
            await self._record(context, tool, result)
        except Exception:
            log.exception("onlooker: recording a tool call failed")

    async def on_agent_end(self, context: Any, agent: Any, output: Any) -> None:
        try:
            ended = TurnEnded(at=self.engine.clock.now())
            # The model reads nothing more in this run: what observers say now is held for the
            # next tool call's output.
            await self.runtime.ahandle(Arrival(ended, self.engine.session.id, deliverable=False))
        except Exception:
            log.exception("onlooker: recording the end of a run failed")

    # -- call_model_input_filter ---------------------------------------------------------------

    def __call__(self, data: CallModelData[Any]) -> ModelInputData:
        """The RunConfig `call_model_input_filter`: tool outputs with their feedback appended."""
        model_data = data.model_data
        if not self.feedback:
            return model_data
        try:
            items = [self._with_feedback(item) for item in model_data.input]
        except Exception:
            log.exception("onlooker: adding feedback to the model input failed")
            return model_data
        return ModelInputData(input=items, instructions=model_data.instructions)

    def _with_feedback(self, item: Any) -> Any:
        if not isinstance(item, Mapping) or item.get("type") != "function_call_output":
            return item
        feedback = self.feedback.get(str(item.get("call_id", "")))
        output = item.get("output")
        if not feedback or not isinstance(output, str) or output.endswith(feedback):
            return item
        changed = copy.copy(dict(item))
        changed["output"] = with_feedback(output, feedback)
        return changed

    async def _record(self, context: Any, tool: Any, result: object) -> None:
        call_id = str(getattr(context, "tool_call_id", "") or "")
        name = str(getattr(context, "tool_name", "") or getattr(tool, "name", "tool"))
        text = result if isinstance(result, str) else str(result)
        failed = text.startswith(self.error_prefixes)
        started = self._started.pop(call_id, None)
        duration = (
            None if started is None else (self.engine.clock.now().timestamp() - started) * 1000
        )
        event = tool_call_event(
            self.engine,
            name=name,
            arguments=getattr(context, "tool_arguments", None),
            result=text,
            is_error=failed,
            call_id=call_id,
            duration_ms=duration,
        )
        feedback = await afeedback_for(self.runtime, event, session_id=self.engine.session.id)
        if feedback and call_id:
            self.feedback[call_id] = feedback


def onlooker_run_config(engine: Engine, base: RunConfig | None = None) -> tuple[RunConfig, Any]:
    """(run_config, hooks) for `Runner.run(agent, input, run_config=..., hooks=...)`.

    A `call_model_input_filter` already in `base` runs first; onlooker's feedback is added to what
    it returns.
    """
    hooks = OnlookerAgentsHooks(engine)
    config = copy.copy(base) if base is not None else RunConfig()
    earlier = config.call_model_input_filter
    if earlier is None:
        config.call_model_input_filter = hooks
    else:

        async def chained(data: CallModelData[Any]) -> ModelInputData:
            result = earlier(data)
            if hasattr(result, "__await__"):
                result = await result
            return hooks(CallModelData(model_data=result, agent=data.agent, context=data.context))

        config.call_model_input_filter = chained
    return config, hooks
