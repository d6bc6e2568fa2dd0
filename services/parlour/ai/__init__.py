"""Computer opponents: strategies that see only what their seat may see.

``parlour.ai.registry.strategy_for(game, level).choose(view, legal, rng)``
picks an action. The package imports none of its modules, so importing one
module of it (the worker, an expert) loads only what that module needs.
"""
