"""How the retrieve profile reads py-spy's samples: each sample of the event loop's thread goes
to the first part of the retrieve on its stack, the rest to the event loop; the model's thread
and the driver's frames are counted beside them."""

from __future__ import annotations

from bench.profile_retrieve import EVENT_LOOP, part_of, profile_parts

LOOP = "_run_module_as_main (<frozen runpy>:198);Runner.run (asyncio/runners.py:118)"
RAW = [
    f"{LOOP};ContextRetriever._hydrate (service/core/read/context.py:195);"
    "MemoryReader.hydrate (service/core/hydration.py:64);"
    "AsyncResult._run (neo4j/_async/work/result.py:231) 50",
    f"{LOOP};guarded (service/core/read/context.py:370);"
    "EdgeVectorStore.search (service/stores/vector_store/edge.py:216) 30",
    f"{LOOP};ContextRetriever.retrieve (service/core/read/context.py:110);"
    "fuse (service/core/read/fusion.py:135) 15",
    f"{LOOP};AsyncBoltSocketBase.sendall (neo4j/_async_compat/network/_bolt_socket.py:228) 5",
    "Thread._bootstrap (threading.py:1002);LocalMiniLM._embed_batch "
    "(service/stores/embeddings.py:112) 40",
    "Thread._bootstrap (threading.py:1002);_worker (concurrent/futures/thread.py:81) 25",
]


def test_a_sample_goes_to_the_first_part_on_its_stack() -> None:
    hydrating_in_retrieve = [
        "ContextRetriever.retrieve (service/core/read/context.py:110)",
        "MemoryReader.hydrate (service/core/hydration.py:64)",
    ]
    assert part_of(hydrating_in_retrieve) == "hydration (statement, driver, views)"
    assert part_of(["Runner.run (asyncio/runners.py:118)"]) == EVENT_LOOP


def test_samples_become_ms_per_call_by_part_with_the_driver_and_model_beside() -> None:
    profile = profile_parts(RAW, calls=10, rate=100)

    assert profile["event_loop_thread_sampled_ms"] == 100.0
    assert profile["parts_ms"] == {
        "vector searches (Qdrant Edge and its hits into Python)": 30.0,
        "redundancy pass": 0.0,
        "hydration (statement, driver, views)": 50.0,
        "lexical statement (driver, hits)": 0.0,
        "graph walk": 0.0,
        "fusion and ranking": 15.0,
        "HTTP and middleware": 0.0,
        EVENT_LOOP: 5.0,
    }
    assert profile["neo4j_driver_ms"] == 55.0
    assert profile["model_thread_ms"] == 40.0
