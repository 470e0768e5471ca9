"""τ²-bench's customer-service domains (airline, retail, telecom, mock), each a world over SQLAlchemy."""
