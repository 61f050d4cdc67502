import { describe, expect, it } from "vitest";
import { keyAttribute, surelyNot, valueAttribute } from "../src/extraction/rules/value-attribute";

/** Which attribute of a thing a value states, from its kind and the words that carry it. */
describe("valueAttribute", () => {
  it("reads a time, a place, an amount and an agent", () => {
    expect(valueAttribute("8am on Saturday")).toBe("time");
    expect(valueAttribute("the afternoon")).toBe("time");
    expect(valueAttribute("the Copper Kettle")).toBe("location");
    expect(valueAttribute("in the back room")).toBe("location");
    expect(valueAttribute("$14 a head")).toBe("cost");
    expect(valueAttribute("paid by the foundation")).toBe("payer");
    expect(valueAttribute("on the company")).toBe("payer");
    expect(valueAttribute("hosted by Marguerite")).toBe("host");
  });

  it("says nothing of a value that mixes two or states none for sure", () => {
    expect(valueAttribute("noon at the Copper Kettle")).toBeNull();
    expect(valueAttribute("paid by the foundation, $14 a head")).toBeNull();
    expect(valueAttribute("a potluck")).toBeNull();
    expect(valueAttribute("Sprint 14")).toBeNull();
    expect(valueAttribute("TBD")).toBeNull();
    expect(valueAttribute("cancelled")).toBeNull();
  });

  it("a value is surely not a time only when no word of it could be one", () => {
    expect(surelyNot("a potluck", "time")).toBe(true);
    expect(surelyNot("three weeks out", "time")).toBe(false);
    expect(surelyNot("TBD", "time")).toBe(false);
    expect(surelyNot("downtown", "location")).toBe(false);
  });

  it("a key's last word names its attribute; a thing's key names none", () => {
    expect(keyAttribute("offsite_venue")).toBe("location");
    expect(keyAttribute("report_deadline")).toBe("time");
    expect(keyAttribute("volunteer_breakfast")).toBeNull();
  });
});
