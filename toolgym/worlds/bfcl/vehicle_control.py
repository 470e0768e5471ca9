"""BFCL's VehicleControlAPI: one car's engine, doors, climate, lights, brakes, cruise control.

State (BFCL's public attributes, compared by the state check): fuel, battery, engine, doors,
climate, headlights, parking brake and brake pedal status, cruise control, destination, the
four tire pressures and the ``long_context`` flag: the one row of the ``vehicle`` table, and
the ``doors`` table. BFCL keeps the brake forces, slope angle and a seeded random generator
(outside temperature, current speed) in private attributes, which the state check ignores:
here they are columns of the row that :meth:`VehicleControlAPI.state` leaves out, and a random
stream of the world. The long-context variant adds BFCL's long texts to
some results (car metadata, the parking-brake manual, intermediary cities, a weather history),
read from ``assets/bfcl/long_context.json``, BFCL's ``long_context.py`` data (Apache-2.0).
Outputs and errors word for word as BFCL's class returns them.
"""

from __future__ import annotations

from typing import Any

from toolgym.worlds.bfcl.api import long_context_data
from toolgym.worlds.bfcl.models import Door, Vehicle, load
from toolgym.worlds.bfcl.world import TableAPI, columns_of

MAX_FUEL_LEVEL = 50
MIN_FUEL_LEVEL = 0.0
MILE_PER_GALLON = 20.0
DOORS = {"driver": "unlocked", "passenger": "unlocked", "rear_left": "unlocked", "rear_right": "unlocked"}
# (scenario key, column, default): BFCL reads a few keys under other names than it stores.
SCENARIO_FIELDS = [
    ("fuelLevel", "fuelLevel", 0.0), ("batteryVoltage", "batteryVoltage", 12.6),
    ("engineState", "engine_state", "stopped"), ("doorStatus", "doorStatus", DOORS),
    ("acTemperature", "acTemperature", 25.0), ("fanSpeed", "fanSpeed", 50), ("acMode", "acMode", "auto"),
    ("humidityLevel", "humidityLevel", 50.0), ("headLightStatus", "headLightStatus", "off"),
    ("parkingBrakeStatus", "parkingBrakeStatus", "released"),
    ("parkingBrakeForce", "parkingBrakeForce", 0.0), ("slopeAngle", "slopeAngle", 0.0),
    ("brakePedalStatus", "brakePedalStatus", "released"), ("brakePedalForce", "brakePedalForce", 0.0),
    ("distanceToNextVehicle", "distanceToNextVehicle", 50.0), ("cruiseStatus", "cruiseStatus", "inactive"),
    ("destination", "destination", "None"),
    ("frontLeftTirePressure", "frontLeftTirePressure", 32.0),
    ("frontRightTirePressure", "frontRightTirePressure", 32.0),
    ("rearLeftTirePressure", "rearLeftTirePressure", 30.0),
    ("rearRightTirePressure", "rearRightTirePressure", 30.0),
]
#: Columns BFCL keeps in private attributes, which its state check does not compare.
PRIVATE_COLUMNS = ("parkingBrakeForce", "slopeAngle", "brakePedalForce")
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




class VehicleControlAPI(TableAPI):
    class_name = "VehicleControlAPI"
    doc_file = "vehicle_control"

    def load_scenario(self, scenario: dict, long_context: bool = False) -> None:
        self._long_context = long_context
        columns = {column: scenario.get(key, default) for key, column, default in SCENARIO_FIELDS
                   if column != "doorStatus"}
        doors = scenario.get("doorStatus", DOORS)
        columns["remainingUnlockedDoors"] = 4 - sum(status == "locked" for status in doors.values())
        columns["long_context"] = long_context
        self._insert_all(Vehicle, [tuple(columns[c.name] for c in Vehicle.__table__.columns if c.name != "position")])
        self._insert_all(Door, doors.items())
        self._world.commit()
        self._stream("sensors", scenario.get("random_seed", DEFAULT_RANDOM_SEED))

    def state(self) -> dict[str, Any]:
        car = self._car()
        state = {column: value for column, value in car.items() if column not in ("position", *PRIVATE_COLUMNS)}
        state["doorStatus"] = self._doors()
        return state

    def _car(self) -> dict[str, Any]:
        """The vehicle row, column by column."""
        return dict(zip(columns_of(Vehicle), self._rows(Vehicle)[0]))

    def _gauge(self, name: str) -> Any:
        """One column of the vehicle row."""
        (value,) = self._sql.execute(f'SELECT "{Vehicle.__table__.c[name].name}" FROM vehicle').fetchone()
        return load(value)

    def _change(self, **values) -> None:
        """Set columns of the vehicle row."""
        self._update(Vehicle, 1, **values)

    def _doors(self) -> dict:
        return {door: status for _, door, status in self._rows(Door)}

    def startEngine(self, ignitionMode: str) -> dict:
        """Starts the engine of the vehicle.

        Args:
            ignitionMode: The ignition mode: START or STOP.
        """
        if ignitionMode == "STOP":
            self._change(engine_state="stopped")
        car = self._car()
        if car["remainingUnlockedDoors"] > 0:
            unlocked = ", ".join(door for door, status in self._doors().items() if status == "unlocked")
            return {"error": "All doors must be locked before starting the engine. Here are the unlocked doors: "
                             + unlocked}
        if car["brakePedalStatus"] != "pressed":
            return {"error": "Brake pedal needs to be pressed when starting the engine."}
        if car["brakePedalForce"] != 1000.0:
            return {"error": "Must press the brake fully before starting the engine."}
        if car["fuelLevel"] < MIN_FUEL_LEVEL:
            return {"error": "Fuel tank is empty."}
        if ignitionMode != "START":
            return {"error": "Invalid ignition mode."}
        self._change(engine_state="running")
        return {"engineState": "running", "fuelLevel": car["fuelLevel"], "batteryVoltage": car["batteryVoltage"]}

    def fillFuelTank(self, fuelAmount: float) -> dict:
        """Fills the fuel tank of the vehicle. The fuel tank can hold up to 50 gallons.

        Args:
            fuelAmount: Gallons of fuel to add to what the tank holds.
        """
        if fuelAmount < 0:
            return {"error": "Fuel amount cannot be negative."}
        fuel = self._gauge("fuelLevel")
        if fuel + fuelAmount > MAX_FUEL_LEVEL:
            return {"error": "Cannot fill gas above the tank capacity."}
        if fuel + fuelAmount < MIN_FUEL_LEVEL:
            return {"error": "Fuel tank is empty. Min fuel level is 0 gallons."}
        fuel += fuelAmount
        self._change(fuelLevel=fuel)
        return {"fuelLevel": fuel}

    def lockDoors(self, unlock: bool, door: list) -> dict:
        """Locks the doors of the vehicle.

        Args:
            unlock: True to unlock the doors, False to lock them.
            door: The doors to lock or unlock, each one of driver, passenger, rear_left and rear_right.
        """
        wanted = "unlocked" if unlock else "locked"
        remaining = self._gauge("remainingUnlockedDoors")
        for name in door:
            row = self._find(Door, "door", name)
            if row is None:
                raise KeyError(name)  # BFCL indexes its door dict; the doors before stay changed
            if row[2] == wanted:
                continue
            self._update(Door, row[0], status=wanted)
            remaining += 1 if unlock else -1
            self._change(remainingUnlockedDoors=remaining)
        return {"lockStatus": wanted, "remainingUnlockedDoors": remaining}

    def adjustClimateControl(self, temperature: float, unit: str = "celsius", fanSpeed: int = 50,
                             mode: str = "auto") -> dict:
        """Adjusts the climate control of the vehicle.

        Args:
            temperature: The temperature to set, in the given unit.
            unit: The unit of the temperature: celsius (the default) or fahrenheit.
            fanSpeed: The fan speed from 0 to 100; 50 by default.
            mode: The climate mode: auto (the default), cool, heat or defrost.
        """
        if not (0 <= fanSpeed <= 100):
            return {"error": "Fan speed must be between 0 and 100."}
        self._change(acTemperature=(temperature - 32) * 5 / 9 if unit == "fahrenheit" else temperature,
                  fanSpeed=fanSpeed, acMode=mode)
        return {"currentACTemperature": temperature, "climateMode": mode, "humidityLevel": self._gauge("humidityLevel")}

    def get_outside_temperature_from_google(self) -> dict:
        """Gets the outside temperature."""
        temperature = self._stream("sensors").uniform(-10.0, 40.0)
        if self._long_context:
            # BFCL writes the temperature into its shared weather dict, which keeps its key order.
            return {**long_context_data()["LONG_WEATHER_EXTENSION"], "outsideTemperature": temperature}
        return {"outsideTemperature": temperature}

    def get_outside_temperature_from_weather_com(self) -> dict:
        """Gets the outside temperature."""
        return {"error": 404}

    def setHeadlights(self, mode: str) -> dict:
        """Sets the headlights of the vehicle.

        Args:
            mode: The headlight mode: on, off or auto.
        """
        if mode not in ["on", "off", "auto"]:
            return {"error": "Invalid headlight mode."}
        status = "on" if mode == "on" else "off"
        self._change(headLightStatus=status)
        return {"headlightStatus": status}

    def displayCarStatus(self, option: str) -> dict:
        """Displays the status of the vehicle based on the provided display option.

        Args:
            option: What to show: fuel, battery, doors, climate, headlights, parkingBrake, brakePedal or engine.
        """
        status = {}
        if self._long_context:
            status["metadata"] = long_context_data()["CAR_STATUS_METADATA_EXTENSION"]
        car = self._car()
        fields = {
            "fuel": {"fuelLevel": car["fuelLevel"]}, "battery": {"batteryVoltage": car["batteryVoltage"]},
            "doors": {"doorStatus": self._doors()},
            "climate": {"currentACTemperature": car["acTemperature"], "fanSpeed": car["fanSpeed"],
                        "climateMode": car["acMode"], "humidityLevel": car["humidityLevel"]},
            "headlights": {"headlightStatus": car["headLightStatus"]},
            "parkingBrake": {"parkingBrakeStatus": car["parkingBrakeStatus"],
                             "parkingBrakeForce": car["parkingBrakeForce"], "slopeAngle": car["slopeAngle"]},
            "brakePedal": {"brakePedalStatus": car["brakePedalStatus"], "brakePedalForce": car["brakePedalForce"]},
            "engine": {"engineState": car["engine_state"]},
        }
        # Compared by ==, as BFCL's if/elif chain does, so an unhashable option is just invalid.
        status.update(next((v for k, v in fields.items() if option == k), {"error": "Invalid option"}))
        return status

    def activateParkingBrake(self, mode: str) -> dict:
        """Activates the parking brake of the vehicle.

        Args:
            mode: engage or release.
        """
        if mode not in ["engage", "release"]:
            return {"error": "Invalid mode"}
        status, force = ("engaged", 500.0) if mode == "engage" else ("released", 0.0)
        self._change(parkingBrakeStatus=status, parkingBrakeForce=force, slopeAngle=10.0)
        result = {"parkingBrakeStatus": status, "_parkingBrakeForce": force, "_slopeAngle": 10.0}
        if self._long_context:
            return {"parkingBrakeInstruction": long_context_data()["PARKING_BRAKE_INSTRUCTION"], **result}
        return result

    def pressBrakePedal(self, pedalPosition: float) -> dict:
        """Presses the brake pedal based on pedal position. The brake pedal will be kept pressed until released.

        Args:
            pedalPosition: How far the pedal is pressed, from 0 (released) to 1 (fully pressed).
        """
        if not (0 <= pedalPosition <= 1):
            return {"error": "Pedal position must be between 0 and 1."}
        if pedalPosition == 0:
            self._change(brakePedalStatus="released", brakePedalForce=0.0)
            return {"brakePedalStatus": "released", "brakePedalForce": 0.0}
        force = pedalPosition * 1000
        self._change(brakePedalStatus="pressed", brakePedalForce=force)
        return {"brakePedalStatus": "pressed", "brakePedalForce": float(force)}

    def releaseBrakePedal(self) -> dict:
        """Releases the brake pedal of the vehicle."""
        self._change(brakePedalStatus="released", brakePedalForce=0.0)
        return {"brakePedalStatus": "released", "brakePedalForce": 0.0}

    def setCruiseControl(self, speed: float, activate: bool, distanceToNextVehicle: float) -> dict:
        """Sets the cruise control of the vehicle.

        Args:
            speed: The speed to hold in miles per hour, from 0 to 120 in steps of 5.
            activate: True to turn cruise control on, False to turn it off.
            distanceToNextVehicle: The distance to keep to the vehicle ahead, in meters.
        """
        distanceToNextVehicle = float(distanceToNextVehicle)
        speed = float(speed)
        if self._gauge("engine_state") == "stopped":
            return {"error": "Start the engine before activating the cruise control."}
        self._change(distanceToNextVehicle=distanceToNextVehicle)  # kept even when the speed is refused, as in BFCL
        if activate:
            if speed < 0 or speed > 120 or speed % 5 != 0:
                return {"error": "Invalid speed"}
            cruise = "active"
        else:
            cruise = "inactive"
        self._change(cruiseStatus=cruise)
        return {"cruiseStatus": cruise, "currentSpeed": speed, "distanceToNextVehicle": distanceToNextVehicle}

    def get_current_speed(self) -> dict:
        """Gets the current speed of the vehicle."""
        return {"currentSpeed": self._stream("sensors").uniform(0.0, 120.0)}

    def display_log(self, messages: list) -> dict:
        """Displays the log messages.

        Args:
            messages: The messages to show.
        """
        return {"log": messages}

    def estimate_drive_feasibility_by_mileage(self, distance: float) -> dict:
        """Estimates the milage of the vehicle given the distance needed to drive.

        Args:
            distance: The distance to drive, in miles.
        """
        return {"canDrive": not self._gauge("fuelLevel") * MILE_PER_GALLON < distance}

    def liter_to_gallon(self, liter: float) -> dict:
        """Converts the liter to gallon.

        Args:
            liter: The amount in liters.
        """
        return {"gallon": liter * 0.264172}

    def gallon_to_liter(self, gallon: float) -> dict:
        """Converts the gallon to liter.

        Args:
            gallon: The amount in gallons.
        """
        return {"liter": gallon * 3.78541}

    def estimate_distance(self, cityA: str, cityB: str) -> dict:
        """Estimates the distance between two cities.

        Args:
            cityA: The zipcode of the first city.
            cityB: The zipcode of the second city.
        """
        # Compared by ==, as BFCL's if/elif chain does, so unhashable cities are just unknown.
        km = next((d for (a, b), d in DISTANCES.items() if (cityA == a and cityB == b) or (cityA == b and cityB == a)),
                  None)
        distance = {"distance": km} if km is not None else {"error": "distance not found in database."}
        if self._long_context:
            distance["intermediaryCities"] = long_context_data()["INTERMEDIARY_CITIES"]
        return distance

    def get_zipcode_based_on_city(self, city: str) -> dict:
        """Gets the zipcode based on the city.

        Args:
            city: The name of the city.
        """
        return {"zipcode": next((code for name, code in ZIPCODES.items() if city == name), "00000")}

    def set_navigation(self, destination: str) -> dict:
        """Navigates to the destination.

        Args:
            destination: Where to go, written as street, city, state.
        """
        self._change(destination=destination)  # set before the message is built, which fails for a non-string
        return {"status": "Navigating to " + destination}

    def check_tire_pressure(self) -> dict:
        """Checks the tire pressure of the vehicle."""
        car = self._car()
        pressures = {name: car[name] for name in ("frontLeftTirePressure", "frontRightTirePressure",
                                                  "rearLeftTirePressure", "rearRightTirePressure")}
        healthy = 30 <= sum(pressures.values()) / 4 <= 35
        car_info = long_context_data()["CAR_STATUS_METADATA_EXTENSION"] if self._long_context else {}
        return {**pressures, "healthy_tire_pressure": healthy, "car_info": car_info}

    def find_nearest_tire_shop(self) -> dict:
        """Finds the nearest tire shop."""
        return {"shopLocation": "456 Oakwood Avenue, Rivermist, 83214"}
