"""Parlour's terminal client (``parlour play``): a Textual app over ``parlour.client``.

It renders the views the server sends and offers the legal actions the server
lists; it holds no rules and imports nothing from the engine or the service.
"""
