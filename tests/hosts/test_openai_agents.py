"""The OpenAI Agents SDK adapter in a real Runner loop, with a scripted Model and no network."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from agents import Agent, ModelSettings, RunConfig, Runner, function_tool
from agents.items import ModelResponse
from agents.models.interface import Model
from agents.run_config import ModelInputData
from agents.usage import Usage
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

from onlooker import Engine, FixedClock, Session, ToolCall
from onlooker.hosts.sdk.openai_agents import onlooker_run_config
from onlooker.observers import builtin_observers

STALL = "[Trajectory Assessment - Stall"


class ScriptedAgentModel(Model):
    """Calls the `run_tests` tool `calls` times with the same arguments, then answers."""

    def __init__(self, calls: int, tool: str = "run_tests") -> None:
        self.calls = calls
        self.tool = tool
        self.inputs: list[list[Any]] = []

    async def get_response(
        self,
        system_instructions: str | None,
        input: Any,
        model_settings: ModelSettings,
        tools: list[Any],
        output_schema: Any,
        handoffs: list[Any],
        tracing: Any,
        **kwargs: Any,
    ) -> ModelResponse:
        items = [input] if isinstance(input, str) else list(input)
        self.inputs.append(items)
        turn = len(self.inputs)
        if turn <= self.calls:
            output: Any = ResponseFunctionToolCall(
                id=f"fc_{turn}",
                call_id=f"call_{turn}",
                name=self.tool,
                arguments=json.dumps({"path": "tests/test_parser.py"}),
                type="function_call",
                status="completed",
            )
        else:
            text = ResponseOutputText(text="Stopping here.", type="output_text", annotations=[])
            output = ResponseOutputMessage(
                id="msg_final", content=[text], role="assistant", status="completed", type="message"
            )
        return ModelResponse(output=[output], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("the scripted model does not stream")


@function_tool
def run_tests(path: str) -> str:
    """Run the tests in one file."""
    return f"FAILED {path}::test_parse - AssertionError: assert 1 == 2\n1 failed in 0.12s"


@function_tool
def broken_tool(path: str) -> str:
    """A tool that raises."""
    raise RuntimeError("disk on fire")


def outputs_seen(model: ScriptedAgentModel) -> list[str]:
    """Every function_call_output the model was sent, in the last request."""
    return [
        item["output"]
        for item in model.inputs[-1]
        if isinstance(item, dict) and item.get("type") == "function_call_output"
    ]


def run(agent: Agent[Any], engine: Engine, base: RunConfig | None = None) -> Any:
    base = base or RunConfig()
    base.tracing_disabled = True  # no trace export: the tests have no network
    config, hooks = onlooker_run_config(engine, base)
    result = asyncio.run(Runner.run(agent, "Fix the parser tests.", run_config=config, hooks=hooks))
    return result, hooks


def test_a_runner_loop_is_recorded_and_the_stall_warning_reaches_the_model() -> None:
    model = ScriptedAgentModel(calls=8)
    agent = Agent(name="fixer", model=model, tools=[run_tests])
    engine = Engine(builtin_observers(), session=Session("agents-run"), clock=FixedClock())
    result, hooks = run(agent, engine)

    assert result.final_output == "Stopping here."
    calls = engine.session[ToolCall].all()
    assert len(calls) == 8
    assert {c.tool for c in calls} == {"run_tests"}
    assert calls[0].input == {"path": "tests/test_parser.py"}
    assert calls[0].call_id == "call_1" and calls[0].ok

    seen = outputs_seen(model)
    assert len(seen) == 8
    warned = [i for i, output in enumerate(seen) if STALL in output]
    assert warned, "the Stall warning never reached the model"
    first = warned[0]
    assert seen[first].startswith("FAILED tests/test_parser.py::test_parse")
    assert seen[first].count(STALL) == 1
    # Earlier outputs are sent unchanged; the feedback stays in the history on later turns.
    assert all(STALL not in output for output in seen[:first])
    assert hooks.feedback[f"call_{first + 1}"] in seen[first]


def test_a_tool_that_raises_is_recorded_as_a_failed_call() -> None:
    model = ScriptedAgentModel(calls=1, tool="broken_tool")
    agent = Agent(name="fixer", model=model, tools=[broken_tool])
    engine = Engine(builtin_observers(), session=Session("agents-fail"), clock=FixedClock())
    run(agent, engine)
    (call,) = engine.session[ToolCall].all()
    assert call.tool == "broken_tool" and call.ok is False
    assert call.error and "An error occurred while running the tool" in call.error


def test_an_existing_input_filter_runs_first() -> None:
    seen: list[int] = []

    def count_items(data: Any) -> ModelInputData:
        seen.append(len(data.model_data.input))
        return data.model_data

    model = ScriptedAgentModel(calls=8)
    agent = Agent(name="fixer", model=model, tools=[run_tests])
    engine = Engine(builtin_observers(), session=Session("agents-chain"), clock=FixedClock())
    run(agent, engine, RunConfig(call_model_input_filter=count_items))
    assert len(seen) == 9
    assert any(STALL in output for output in outputs_seen(model))
