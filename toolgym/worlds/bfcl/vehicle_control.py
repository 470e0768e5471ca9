"""BFCL's VehicleControlAPI: one car's engine, doors, climate, lights, brakes, cruise control.

State (BFCL's public attributes, compared by the state check): fuel, battery, engine, doors,
climate, headlights, parking brake and brake pedal status, cruise control, destination, the
four tire pressures and the ``long_context`` flag. BFCL keeps the brake forces, slope angle and
a seeded random generator (outside temperature, current speed) in private attributes, which
the state check ignores; so does this class. The long-context variant adds BFCL's long texts to
some results (car metadata, the parking-brake manual, intermediary cities, a weather history),
read from ``assets/bfcl/long_context.json``, BFCL's ``long_context.py`` data (Apache-2.0).
Outputs and errors word for word as BFCL's class returns them.
"""

from __future__ import annotations

import copy
import random

from toolgym.worlds.bfcl.api import BfclAPI, long_context_data

MAX_FUEL_LEVEL = 50
MIN_FUEL_LEVEL = 0.0
MILE_PER_GALLON = 20.0
DOORS = {"driver": "unlocked", "passenger": "unlocked", "rear_left": "unlocked", "rear_right": "unlocked"}
# (scenario key, attribute, default): BFCL reads three keys under other names than it stores.
SCENARIO_FIELDS = [
    ("fuelLevel", "fuelLevel", 0.0), ("batteryVoltage", "batteryVoltage", 12.6),
    ("engineState", "engine_state", "stopped"), ("doorStatus", "doorStatus", DOORS),
    ("acTemperature", "acTemperature", 25.0), ("fanSpeed", "fanSpeed", 50), ("acMode", "acMode", "auto"),
    ("humidityLevel", "humidityLevel", 50.0), ("headLightStatus", "headLightStatus", "off"),
    ("parkingBrakeStatus", "parkingBrakeStatus", "released"),
    ("parkingBrakeForce", "_parkingBrakeForce", 0.0), ("slopeAngle", "_slopeAngle", 0.0),
    ("brakePedalStatus", "brakePedalStatus", "released"), ("brakePedalForce", "_brakePedalForce", 0.0),
    ("distanceToNextVehicle", "distanceToNextVehicle", 50.0), ("cruiseStatus", "cruiseStatus", "inactive"),
    ("destination", "destination", "None"),
    ("frontLeftTirePressure", "frontLeftTirePressure", 32.0),
    ("frontRightTirePressure", "frontRightTirePressure", 32.0),
    ("rearLeftTirePressure", "rearLeftTirePressure", 30.0),
    ("rearRightTirePressure", "rearRightTirePressure", 30.0),
]
DEFAULT_RANDOM_SEED = 141053
# Symmetric city-pair distances in km, and city zip codes, as BFCL's class hard-codes them.
DISTANCES = {
    ("83214", "74532"): 750.0, ("56108", "62947"): 320.0, ("71354", "83462"): 450.0,
    ("47329", "52013"): 290.0, ("69238", "51479"): 630.0, ("94016", "83214"): 980.0,
    ("94016", "94704"): 600.0, ("94704", "08540"): 2550.0, ("94016", "08540"): 1950.0,
    ("62947", "47329"): 1053.0, ("94016", "62947"): 780.0, ("74532", "94016"): 880.0,
}
ZIPCODES = {
    "Rivermist": "83214", "Stonebrook": "74532", "Maplecrest": "56108", "Silverpine": "62947",
    "Shadowridge": "71354", "Sunset Valley": "83462", "Oakendale": "47329", "Willowbend": "52013",
    "Crescent Hollow": "69238", "Autumnville": "51479", "San Francisco": "94016",
}




class VehicleControlAPI(BfclAPI):
    class_name = "VehicleControlAPI"
    doc_file = "vehicle_control"

    def load_scenario(self, scenario: dict, long_context: bool = False) -> None:
        self._random = random.Random(scenario.get("random_seed", DEFAULT_RANDOM_SEED))
        for key, attribute, default in SCENARIO_FIELDS:
            setattr(self, attribute, copy.deepcopy(scenario.get(key, default)))
        self.remainingUnlockedDoors = 4 - sum(status == "locked" for status in self.doorStatus.values())
        self.long_context = long_context

    def startEngine(self, ignitionMode: str) -> dict:
        """Starts the engine of the vehicle."""
        if ignitionMode == "STOP":
            self.engine_state = "stopped"
        if self.remainingUnlockedDoors > 0:
            unlocked = ", ".join(door for door, status in self.doorStatus.items() if status == "unlocked")
            return {"error": "All doors must be locked before starting the engine. Here are the unlocked doors: "
                             + unlocked}
        if self.brakePedalStatus != "pressed":
            return {"error": "Brake pedal needs to be pressed when starting the engine."}
        if self._brakePedalForce != 1000.0:
            return {"error": "Must press the brake fully before starting the engine."}
        if self.fuelLevel < MIN_FUEL_LEVEL:
            return {"error": "Fuel tank is empty."}
        if ignitionMode != "START":
            return {"error": "Invalid ignition mode."}
        self.engine_state = "running"
        return {"engineState": self.engine_state, "fuelLevel": self.fuelLevel, "batteryVoltage": self.batteryVoltage}

    def fillFuelTank(self, fuelAmount: float) -> dict:
        """Fills the fuel tank of the vehicle. The fuel tank can hold up to 50 gallons."""
        if fuelAmount < 0:
            return {"error": "Fuel amount cannot be negative."}
        if self.fuelLevel + fuelAmount > MAX_FUEL_LEVEL:
            return {"error": "Cannot fill gas above the tank capacity."}
        if self.fuelLevel + fuelAmount < MIN_FUEL_LEVEL:
            return {"error": "Fuel tank is empty. Min fuel level is 0 gallons."}
        self.fuelLevel += fuelAmount
        return {"fuelLevel": self.fuelLevel}

    def lockDoors(self, unlock: bool, door: list) -> dict:
        """Locks the doors of the vehicle."""
        wanted = "unlocked" if unlock else "locked"
        for name in door:
            if self.doorStatus[name] == wanted:
                continue
            self.doorStatus[name] = wanted
            self.remainingUnlockedDoors += 1 if unlock else -1
        return {"lockStatus": wanted, "remainingUnlockedDoors": self.remainingUnlockedDoors}

    def adjustClimateControl(self, temperature: float, unit: str = "celsius", fanSpeed: int = 50,
                             mode: str = "auto") -> dict:
        """Adjusts the climate control of the vehicle."""
        if not (0 <= fanSpeed <= 100):
            return {"error": "Fan speed must be between 0 and 100."}
        self.acTemperature = (temperature - 32) * 5 / 9 if unit == "fahrenheit" else temperature
        self.fanSpeed = fanSpeed
        self.acMode = mode
        return {"currentACTemperature": temperature, "climateMode": mode, "humidityLevel": self.humidityLevel}

    def get_outside_temperature_from_google(self) -> dict:
        """Gets the outside temperature."""
        temperature = self._random.uniform(-10.0, 40.0)
        if self.long_context:
            # BFCL writes the temperature into its shared weather dict, which keeps its key order.
            return {**long_context_data()["LONG_WEATHER_EXTENSION"], "outsideTemperature": temperature}
        return {"outsideTemperature": temperature}

    def get_outside_temperature_from_weather_com(self) -> dict:
        """Gets the outside temperature."""
        return {"error": 404}

    def setHeadlights(self, mode: str) -> dict:
        """Sets the headlights of the vehicle."""
        if mode not in ["on", "off", "auto"]:
            return {"error": "Invalid headlight mode."}
        self.headLightStatus = "on" if mode == "on" else "off"
        return {"headlightStatus": self.headLightStatus}

    def displayCarStatus(self, option: str) -> dict:
        """Displays the status of the vehicle based on the provided display option."""
        status = {}
        if self.long_context:
            status["metadata"] = long_context_data()["CAR_STATUS_METADATA_EXTENSION"]
        fields = {
            "fuel": {"fuelLevel": self.fuelLevel}, "battery": {"batteryVoltage": self.batteryVoltage},
            "doors": {"doorStatus": self.doorStatus},
            "climate": {"currentACTemperature": self.acTemperature, "fanSpeed": self.fanSpeed,
                        "climateMode": self.acMode, "humidityLevel": self.humidityLevel},
            "headlights": {"headlightStatus": self.headLightStatus},
            "parkingBrake": {"parkingBrakeStatus": self.parkingBrakeStatus,
                             "parkingBrakeForce": self._parkingBrakeForce, "slopeAngle": self._slopeAngle},
            "brakePedal": {"brakePedalStatus": self.brakePedalStatus, "brakePedalForce": self._brakePedalForce},
            "engine": {"engineState": self.engine_state},
        }
        # Compared by ==, as BFCL's if/elif chain does, so an unhashable option is just invalid.
        status.update(next((v for k, v in fields.items() if option == k), {"error": "Invalid option"}))
        return status

    def activateParkingBrake(self, mode: str) -> dict:
        """Activates the parking brake of the vehicle."""
        if mode not in ["engage", "release"]:
            return {"error": "Invalid mode"}
        self.parkingBrakeStatus = "engaged" if mode == "engage" else "released"
        self._parkingBrakeForce = 500.0 if mode == "engage" else 0.0
        self._slopeAngle = 10.0
        result = {"parkingBrakeStatus": self.parkingBrakeStatus, "_parkingBrakeForce": self._parkingBrakeForce,
                  "_slopeAngle": 10.0}
        if self.long_context:
            return {"parkingBrakeInstruction": long_context_data()["PARKING_BRAKE_INSTRUCTION"], **result}
        return result

    def pressBrakePedal(self, pedalPosition: float) -> dict:
        """Presses the brake pedal based on pedal position. The brake pedal will be kept pressed until released."""
        if not (0 <= pedalPosition <= 1):
            return {"error": "Pedal position must be between 0 and 1."}
        if pedalPosition == 0:
            self.brakePedalStatus = "released"
            self._brakePedalForce = 0.0
            return {"brakePedalStatus": "released", "brakePedalForce": 0.0}
        force = pedalPosition * 1000
        self.brakePedalStatus = "pressed"
        self._brakePedalForce = force
        return {"brakePedalStatus": "pressed", "brakePedalForce": float(force)}

    def releaseBrakePedal(self) -> dict:
        """Releases the brake pedal of the vehicle."""
        self.brakePedalStatus = "released"
        self._brakePedalForce = 0.0
        return {"brakePedalStatus": "released", "brakePedalForce": 0.0}

    def setCruiseControl(self, speed: float, activate: bool, distanceToNextVehicle: float) -> dict:
        """Sets the cruise control of the vehicle."""
        distanceToNextVehicle = float(distanceToNextVehicle)
        speed = float(speed)
        if self.engine_state == "stopped":
            return {"error": "Start the engine before activating the cruise control."}
        self.distanceToNextVehicle = distanceToNextVehicle
        if activate:
            if speed < 0 or speed > 120 or speed % 5 != 0:
                return {"error": "Invalid speed"}
            self.cruiseStatus = "active"
        else:
            self.cruiseStatus = "inactive"
        return {"cruiseStatus": self.cruiseStatus, "currentSpeed": speed,
                "distanceToNextVehicle": distanceToNextVehicle}

    def get_current_speed(self) -> dict:
        """Gets the current speed of the vehicle."""
        return {"currentSpeed": self._random.uniform(0.0, 120.0)}

    def display_log(self, messages: list) -> dict:
        """Displays the log messages."""
        return {"log": messages}

    def estimate_drive_feasibility_by_mileage(self, distance: float) -> dict:
        """Estimates the milage of the vehicle given the distance needed to drive."""
        return {"canDrive": not self.fuelLevel * MILE_PER_GALLON < distance}

    def liter_to_gallon(self, liter: float) -> dict:
        """Converts the liter to gallon."""
        return {"gallon": liter * 0.264172}

    def gallon_to_liter(self, gallon: float) -> dict:
        """Converts the gallon to liter."""
        return {"liter": gallon * 3.78541}

    def estimate_distance(self, cityA: str, cityB: str) -> dict:
        """Estimates the distance between two cities."""
        # Compared by ==, as BFCL's if/elif chain does, so unhashable cities are just unknown.
        km = next((d for (a, b), d in DISTANCES.items() if (cityA == a and cityB == b) or (cityA == b and cityB == a)),
                  None)
        distance = {"distance": km} if km is not None else {"error": "distance not found in database."}
        if self.long_context:
            distance["intermediaryCities"] = long_context_data()["INTERMEDIARY_CITIES"]
        return distance

    def get_zipcode_based_on_city(self, city: str) -> dict:
        """Gets the zipcode based on the city."""
        return {"zipcode": next((code for name, code in ZIPCODES.items() if city == name), "00000")}

    def set_navigation(self, destination: str) -> dict:
        """Navigates to the destination."""
        self.destination = destination
        return {"status": "Navigating to " + destination}

    def check_tire_pressure(self) -> dict:
        """Checks the tire pressure of the vehicle."""
        pressures = {"frontLeftTirePressure": self.frontLeftTirePressure,
                     "frontRightTirePressure": self.frontRightTirePressure,
                     "rearLeftTirePressure": self.rearLeftTirePressure,
                     "rearRightTirePressure": self.rearRightTirePressure}
        healthy = 30 <= sum(pressures.values()) / 4 <= 35
        car_info = long_context_data()["CAR_STATUS_METADATA_EXTENSION"] if self.long_context else {}
        return {**pressures, "healthy_tire_pressure": healthy, "car_info": car_info}

    def find_nearest_tire_shop(self) -> dict:
        """Finds the nearest tire shop."""
        return {"shopLocation": "456 Oakwood Avenue, Rivermist, 83214"}
