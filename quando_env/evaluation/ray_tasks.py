"""Work on Ray: the batches of a match (evaluation.matches.split_games) run as Ray tasks, at least one per CPU of
the cluster, so `evaluate.py --ray local|ADDRESS` uses every core of this machine or of a cluster; so do the
label shards of `python -m quando_env.training.distill label --ray` (RayRunner.run: any function over items).

Only this module imports Ray, and evaluate.py and distill import it for --ray alone. A task runs the very
play_batch a single process runs, on agents it builds itself from the recipe it is given (evaluate.py's: the
agents' names, through make_agent), and every game's randomness comes from that game's seed, so the results are
those of the single-process run with the same seed whatever the split and the order tasks finish in. That makes a task
safe to run again: one whose worker dies (killed, out of memory, its node lost) is retried, up to
MAX_RETRIES times, and gives the result it would have given.
"""
import numba
import ray

from quando_env.integrations import init_ray

MAX_RETRIES = 3     # reruns of a task whose worker died; an exception raised by play itself is not retried


@ray.remote(num_cpus=1, max_retries=MAX_RETRIES, retry_exceptions=False)
def _call(fn, item):
    numba.set_num_threads(1)        # the task holds one CPU: engines stay on it, as do the other tasks on theirs
    return fn(item)


class RayRunner:
    """Runs a match's batches as tasks on the Ray at `address` ("local": a Ray started on this machine, on
    loopback; an address joins that cluster; ConnectionError naming it when no cluster answers there, within
    init_ray's timeout). The runner of evaluation.matches.play_match."""

    def __init__(self, address: str = "local"):
        init_ray(address)
        self.num_cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))

    def run(self, fn, items):
        """fn(item) for every item as a Ray task (one CPU each), yielded as the tasks complete."""
        fn = ray.put(fn)
        pending = [_call.remote(fn, x) for x in items]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            yield ray.get(done[0])

    def map(self, play, batches, on_games):
        """play(batch) for every batch as a Ray task, yielded as the tasks complete; on_games(size) for each."""
        for result in self.run(play, batches):
            on_games(result.batch.size)
            yield result
