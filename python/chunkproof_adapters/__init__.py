"""chunkproof's external-planner side (docs/live.md): the protocol loop, the plan schema built
from an engine's own metadata, a reference test planner, and adapters that call vLLM's and
SGLang's planner functions. Pure Python; the adapters need the engine's code (and what it
imports: torch, numpy) only when they run it."""
