"""τ²-bench's customer-service domains: airline, retail and mock, each a world over SQLAlchemy."""
