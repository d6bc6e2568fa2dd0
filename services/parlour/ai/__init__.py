"""Computer opponents: strategies that see only what their seat may see.

``strategy_for(game_id, level).choose(view, legal, rng)`` picks an action.
"""

from parlour.ai.common import NamedStrategy, Strategy, choose_randomly
from parlour.ai.registry import LEVELS, levels, strategy_for

__all__ = ["LEVELS", "NamedStrategy", "Strategy", "choose_randomly", "levels", "strategy_for"]
