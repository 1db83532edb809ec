"""Self-Extend and Dual Chunk Attention distances against loops written from the papers and vLLM.

Self-Extend: grouped positions pos // G for every token, the query's shifted by w - w // G, the
neighbour window kept (Jin et al., 2024). DCA: the three query positions of vLLM's
``dual_chunk_rope.py`` (q_t, qc_t clamped at chunk_size, qc_t[chunk_len - 1]) and keys at
j % chunk_len, chosen per key by which chunk it is in.
"""

from __future__ import annotations

import numpy as np
import pytest

from posenc_lib.remapping import dual_chunk_distances, self_extend_distances


@pytest.mark.parametrize("n,group,window", [(50, 4, 8), (200, 16, 32), (33, 1, 5)])
def test_self_extend_matches_grouped_positions(n: int, group: int, window: int) -> None:
    grouped = [p // group for p in range(n)]
    shift = window - window // group
    for i in (n - 1, n // 2, 0):
        got = self_extend_distances(i, np.arange(i + 1), group=group, window=window)
        want = [i - j if i - j < window else grouped[i] + shift - grouped[j] for j in range(i + 1)]
        assert got.tolist() == want


def test_self_extend_reach_formula() -> None:
    trained, group, window = 4096, 16, 1024
    reach = (trained - window) * group + window
    seen = self_extend_distances(reach - 1, np.arange(reach), group=group, window=window)
    assert seen.max() < trained
    too_far = reach + group
    assert self_extend_distances(too_far - 1, [0], group=group, window=window)[0] >= trained


@pytest.mark.parametrize("chunk_size,local_size", [(12, 3), (3072, 256), (7, 1)])
def test_dual_chunk_matches_vllm_position_caches(chunk_size: int, local_size: int) -> None:
    c = chunk_size - local_size
    q_t = list(range(c))
    qc_t = [min(t + c, chunk_size) for t in range(c)]
    for i in (5 * c + 2, 3 * c - 1, c // 2):
        got = dual_chunk_distances(i, np.arange(i + 1), chunk_size=chunk_size,
                                   local_size=local_size)
        for j in range(i + 1):
            if i // c == j // c:
                query = q_t[i % c]
            elif i // c == j // c + 1:
                query = qc_t[i % c]
            else:
                query = qc_t[c - 1]
            assert got[j] == query - j % c
        assert got.max() <= chunk_size and got.min() >= 0


def test_dual_chunk_keeps_true_distances_in_the_own_chunk() -> None:
    i, c = 10_000, 3072 - 256
    got = dual_chunk_distances(i, np.arange(i + 1), chunk_size=3072, local_size=256)
    own = np.arange((i // c) * c, i + 1)
    assert np.array_equal(got[own], i - own)


@pytest.mark.parametrize("bad", [{"keys": [5]}, {"keys": [-1]}, {"keys": [1.5]}])
def test_keys_must_be_positions_up_to_the_query(bad: dict) -> None:
    with pytest.raises((ValueError, TypeError), match="keys"):
        self_extend_distances(3, group=2, window=2, **bad)
    with pytest.raises(ValueError, match="local_size"):
        dual_chunk_distances(3, [0], chunk_size=4, local_size=4)
