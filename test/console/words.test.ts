import { describe, expect, it } from "vitest";
// @ts-expect-error the console's modules are plain ES modules, checked by their own tsconfig
import { inWords, labelOfField } from "../../shared/console/lib/words.js";

describe("the API's complaints in people's words", () => {
  it("the validation library's generic messages become what to do, named after the field's label", () => {
    expect(inWords("Too small: expected string to have >=1 characters", "Name")).toBe("Enter a name");
    expect(inWords("Invalid input: expected string, received undefined", "Endpoint URL")).toBe("Enter an endpoint URL");
    expect(inWords("Too small: expected array to have >=1 items", "Events")).toBe("Choose at least one event");
    expect(inWords('Invalid option: expected one of "csv"|"xlsx"|"json"', "Format")).toBe(
      "Choose a format from the list",
    );
    expect(inWords("Too big: expected string to have <=200 characters", "Name")).toBe(
      "Shorten it to at most 200 characters",
    );
    expect(inWords("Too big: expected number to be <=65535", "Port")).toBe("Enter a number of at most 65535");
    expect(inWords("Invalid input: expected number, received string", "Port")).toBe("Enter a whole number");
  });

  it("the service's own words are kept as they are", () => {
    for (const own of [
      "is not an IANA time zone (e.g. Europe/London, America/New_York, UTC)",
      "an SFTP destination needs a password or a privateKey",
      "is required for a weekly schedule",
    ])
      expect(inWords(own, "Time zone")).toBe(own);
  });

  it("a field path not on the form reads as words", () => {
    expect(labelOfField("destination.containerUrl")).toBe("container URL");
    expect(labelOfField("schedule.dayOfWeek")).toBe("day of week");
    expect(labelOfField("events[0]")).toBe("events");
  });
});
