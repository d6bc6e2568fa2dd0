"""Parlour: card games over one gRPC contract."""
