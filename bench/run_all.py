"""Run every benchmark in turn (`make bench`); each prints and writes bench/results/*.json."""

from __future__ import annotations

from bench import bench_links, bench_quality, bench_retrieval


def main() -> None:
    bench_links.main()
    bench_quality.main()
    bench_retrieval.main()


if __name__ == "__main__":
    main()
