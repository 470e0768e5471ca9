"""HomeSearch-v0 and TripBooking-v0: ToolBench's API-program tasks."""

from toolgym.envs.api_program.env import HomeSearchEnv, TripBookingEnv

__all__ = ["HomeSearchEnv", "TripBookingEnv"]
