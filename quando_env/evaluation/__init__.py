"""Evaluation: agents of quando_env.agents measured against each other, and nothing that trains them.

- `matches`: play agents against each other with rotating seats (play_match, format_table, records);
- `cli`: evaluate.py's command line (`python -m quando_env evaluate`, `python -m quando_env.evaluation.cli`);
- `league`: every lineup of a pool of agents, with ratings;
- `strength`: the shipped agents' measured strength (`python -m quando_env.evaluation.strength`);
- `plots`: charts of results; `ray_tasks`: a match's batches as Ray tasks.

Evaluation reads the players (quando_env.agents); it never imports quando_env.training.
"""
