"""Array pieces the JAX engines share, each written the way XLA runs fast on the CPU (where a (52, 52) or (55, 55)
reduction, or a threefry draw per card, costs more than the rest of a step)."""
import jax
import jax.numpy as jnp
import numpy as np


def i32(x):
    return jnp.asarray(x, jnp.int32)


def div(x, k, size: int):
    """x / k as the numba engines store it (the float64 quotient rounded to float32), read from a table of x in
    0..size-1: XLA's float32 division is one bit off at times. Beyond the table, XLA's quotient."""
    table = jnp.asarray((np.arange(size) / k).astype(np.float32))
    return jnp.where(x < size, table[jnp.clip(x, 0, size - 1)], jnp.asarray(x, jnp.float32) / k)


def rank(before, size: int, *arrays):
    """Per item 0..size-1: how many items go before it, `before(j, *arrays)` being the (size,) bool "item j goes
    before each item". Summed one j at a time in a loop, which XLA runs once, where a (size, size) reduction, or the
    unrolled sum fused into each of its consumers, is many times slower."""
    def add(j, count):
        return count + before(j, *arrays)
    return jax.lax.fori_loop(0, size, add, jnp.zeros(size, jnp.int32), unroll=5)


def hashed_bits(seed, size: int, salt: int = 0):
    """31 random bits per item 0..size-1 from one uint32 `seed` (murmur3's finalizer over seed, salt and item): one
    threefry draw per step rather than one per item."""
    items = jnp.arange(size, dtype=jnp.uint32)
    x = seed ^ (items * jnp.uint32(0x9E3779B9) + jnp.uint32(salt * 0x85EBCA6B & 0xFFFFFFFF))
    for shift, mul in ((16, 0x85EBCA6B), (13, 0xC2B2AE35)):
        x = (x ^ (x >> shift)) * jnp.uint32(mul)
    return (x ^ (x >> 16)) >> 1


def random_order(seed, among):
    """A uniformly random position 0..m-1 for each of the m items marked in `among` (ranks of random keys, ties by
    index; the others after them)."""
    size = among.shape[0]
    u = jnp.where(among, hashed_bits(seed, size, 1), jnp.uint32(2**31))
    items = jnp.arange(size)
    return rank(lambda j, u: (u[j] < u) | ((u[j] == u) & (j < items)), size, u)


def histogram(x, size: int, weights=1):
    """Per value 0..size-1 how many entries of x hold it (the others ignored)."""
    return jnp.zeros(size, jnp.int32).at[x].add(weights, mode="drop")


def joined(parts):
    """The parts as one float32 vector, in order."""
    return jnp.concatenate([jnp.asarray(x, jnp.float32).reshape(-1) for x in parts])


def relative_one_hot(q, p, n: int, on=True):
    """One-hot of seat q seen from seat p (0: p itself, r: r seats clockwise), zero where not `on`."""
    return jax.nn.one_hot((q - p) % n, n) * on
