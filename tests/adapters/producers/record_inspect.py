"""Record Inspect AI eval logs of a weather task, offline.

Runs the real ``inspect-ai`` package (``pip install inspect-ai``) with its ``mockllm`` model
playing scripted outputs: the user asks for the weather in Paris, the model calls
``get_weather(city="Paris")``, the tool answers, the model replies. Three samples in one task:
the right call, a wrong city, and a tool that raises (Inspect records the tool message's
``error``). Writes under ``tests/data/adapters/inspect/``:

- ``weather.eval``: the log as Inspect writes it (a zip of zstd members);
- ``weather.json``: the same log as ``inspect log convert --to json`` writes it;
- ``weather_one.eval`` / ``weather_one.json``: a log of the first sample alone.

The mock model counts its tokens with tiktoken, whose encoding file is downloaded on first use;
offline, the script replaces that estimate with a word count (the log's token numbers are that
estimate, nothing else in the log is touched).

Run: ``/tmp/venv/bin/python tests/adapters/producers/record_inspect.py``
"""

from __future__ import annotations

import importlib.metadata
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelAPI, ModelOutput, get_model
from inspect_ai.scorer import includes
from inspect_ai.solver import generate, use_tools
from inspect_ai.tool import ToolError, tool

OUT = Path(__file__).parents[2] / "data" / "adapters" / "inspect"
QUESTION = "What is the weather in Paris?"


@tool
def get_weather():  # type: ignore[no-untyped-def]
    async def execute(city: str) -> str:
        """Return the current weather of a city.

        Args:
            city: The city.
        """
        if city == "Atlantis":
            raise ToolError(f"no weather station in {city}")
        return f"18°C and sunny in {city}"

    return execute


def _outputs() -> list[ModelOutput]:
    script = [("Paris", "It is 18°C and sunny in Paris."),
              ("London", "It is 18°C and sunny in London."),
              ("Atlantis", "Sorry, I could not get the weather.")]
    outputs: list[ModelOutput] = []
    for city, answer in script:
        outputs.append(ModelOutput.for_tool_call("mockllm/model", "get_weather", {"city": city}))
        outputs.append(ModelOutput.from_content("mockllm/model", answer))
    return outputs


async def _word_count(self: ModelAPI, text: str) -> int:
    return max(1, len(text.split()))


def _record(samples: int, name: str) -> None:
    task = Task(
        dataset=[Sample(id=f"weather-{n}", input=QUESTION, target="sunny")
                 for n in range(1, samples + 1)],
        solver=[use_tools(get_weather()), generate()],
        scorer=includes(),
    )
    model = get_model("mockllm/model", custom_outputs=_outputs()[: 2 * samples])
    with tempfile.TemporaryDirectory() as logs:
        [log] = eval(task, model=model, log_dir=logs, max_samples=1, display="none")
        assert log.status == "success", (log.status, log.error)
        OUT.mkdir(parents=True, exist_ok=True)
        shutil.copy(log.location, OUT / f"{name}.eval")
        converted = Path(logs) / "json"
        subprocess.run(["inspect", "log", "convert", "--to", "json", "--output-dir",
                        str(converted), log.location], check=True)
        [written] = converted.glob("*.json")
        shutil.copy(written, OUT / f"{name}.json")


def main() -> int:
    ModelAPI.count_text_tokens = _word_count  # type: ignore[method-assign]
    _record(3, "weather")
    _record(1, "weather_one")
    (OUT / "VERSION.txt").write_text(f"inspect-ai {importlib.metadata.version('inspect-ai')}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
