"""A thin REST/JSON gateway for browsers, generic over the gRPC contract."""
