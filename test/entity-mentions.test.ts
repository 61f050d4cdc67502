import { describe, expect, it } from "vitest";
import { identityMentions } from "../src/entities/mentions/identity-mentions";
import { keyMentions } from "../src/entities/mentions/key-mentions";
import { RuleMentionExtractor } from "../src/entities/mentions/rule-mention-extractor";
import { textMentions } from "../src/entities/mentions/text-mentions";

/** Issue 17 item 1: the offline mention rules, one kind of language each, on invented sentences. */

const found = (text: string, origin: "message" | "tool_output" = "message") =>
  textMentions(text, origin).map((m) => ({ text: m.text, name: m.name, type: m.type, strength: m.strength }));

describe("mention rules", () => {
  it("reads capitalised multiword names, typed by their endings and the words around them", () => {
    expect(
      found("Yesterday we met Oskar Brandt and the people from Lowmoor Holdings near Quarry Road."),
    ).toEqual([
      { text: "Oskar Brandt", name: "Oskar Brandt", type: "other", strength: "strong" },
      { text: "Lowmoor Holdings", name: "Lowmoor Holdings", type: "organization", strength: "strong" },
      { text: "Quarry Road", name: "Quarry Road", type: "place", strength: "strong" },
    ]);
    expect(found("Then Oskar Brandt said the crates are late.")[0]).toMatchObject({
      text: "Oskar Brandt",
      type: "person",
    });
  });

  it("reads addresses, handles, paths, URLs and document ids as identified mentions", () => {
    const mentions = textMentions(
      "Mail wren.ito@saltmarsh.dev or @wren_i, see /opt/tools/deploy.sh, notes/rollout.md, https://docs.saltmarsh.dev/a and OPS-4471.",
      "message",
    );
    expect(mentions.map((m) => [m.type, m.metadata])).toEqual([
      ["person", { email: "wren.ito@saltmarsh.dev", email_domain: "saltmarsh.dev" }],
      ["person", { handle: "@wren_i" }],
      ["document", { path: "/opt/tools/deploy.sh" }],
      ["document", { path: "notes/rollout.md" }],
      ["document", { url: "https://docs.saltmarsh.dev/a" }],
      ["document", { document_id: "OPS-4471" }],
    ]);
    expect(found("Shared inbox: billing@saltmarsh.dev")[0]?.type).toBe("team");
    expect(found("Encoding is UTF-8 and the hash SHA-256.")).toEqual([]);
  });

  it("reads role descriptions as roles under one name, with the abbreviation as an alias", () => {
    const mentions = textMentions(
      "Our CTO and the head of procurement disagree; the VP of Marketing sides with the CTO.",
      "message",
    );
    expect(mentions.map((m) => [m.text, m.name, m.type, m.aliases])).toEqual([
      ["CTO", "chief technology officer", "role", ["CTO"]],
      ["head of procurement", "head of procurement", "role", []],
      ["VP of Marketing", "vice president of marketing", "role", ["VP of marketing"]],
      ["CTO", "chief technology officer", "role", ["CTO"]],
    ]);
    expect(found("The same manager asked again.")).toEqual([]);
  });

  it("reads 'the X team/repo/office' and 'Project X' with the kind the head noun gives", () => {
    const mentions = textMentions(
      "The billing squad moved the invoices repo to the Lisbon office for Project Heron, unlike the Osprey project.",
      "message",
    );
    expect(mentions.map((m) => [m.name, m.type, m.aliases])).toEqual([
      ["Billing squad", "team", []],
      ["Invoices repo", "system", []],
      ["Lisbon office", "place", []],
      ["Project Heron", "project", ["Heron"]],
      ["Project Osprey", "project", ["Osprey"]],
    ]);
    expect(found("We need a new repo for the whole team.")).toEqual([]);
  });

  it("keeps lone capitalised words and acronyms weak, and drops sentence openers and common abbreviations", () => {
    expect(found("Please ask Heron about GCP costs ASAP.")).toEqual([
      { text: "Heron", name: "Heron", type: "other", strength: "weak" },
      { text: "GCP", name: "GCP", type: "other", strength: "weak" },
    ]);
    expect(found("Meanwhile the budget holds.")).toEqual([]);
    expect(found("Wren approved the change.")[0]).toMatchObject({
      text: "Wren",
      type: "person",
      strength: "weak",
    });
    expect(found("Ms Ito joined.")[0]).toMatchObject({ text: "Ito", type: "person", strength: "strong" });
  });

  it("reads conversation for precision: openers, headings, capitals throughout, code names and handles are weak", () => {
    const strengths = (text: string, origin: "message" | "tool_output" | "fact_value" = "message") =>
      textMentions(text, origin).map((m) => [m.text, m.strength]);
    // A run opening a sentence, a list item or bold, or a line is weak in a message, strong in a fact's value.
    expect(strengths("Noted. Sounds Good To Me.")).toEqual([["Sounds Good To Me", "weak"]]);
    expect(strengths("2. **Tidy Release Notes**: done")).toEqual([["Tidy Release Notes", "weak"]]);
    expect(strengths("Sounds Good To Me", "fact_value")).toEqual([["Sounds Good To Me", "strong"]]);
    // Inside a sentence a name stays strong; one who speaks stays strong at its start.
    expect(strengths("I spoke with Ilse Marwood today.")).toEqual([["Ilse Marwood", "strong"]]);
    expect(strengths("Ilse Marwood approved the plan.")).toEqual([["Ilse Marwood", "strong"]]);
    expect(strengths("we ran EXPLAIN QUERY PLAN and saw NullPointer Trace Dump")).toEqual([
      ["EXPLAIN QUERY PLAN", "weak"],
      ["NullPointer Trace Dump", "weak"],
    ]);
    expect(strengths("ping @orla about @media rules", "tool_output")).toEqual([
      ["@orla", "weak"],
      ["@media", "weak"],
    ]);
    expect(strengths("served on http://localhost:8080 and https://status.fernbank.io")).toEqual([
      ["http://localhost:8080", "weak"],
      ["https://status.fernbank.io", "strong"],
    ]);
    expect(strengths("## Project Layout\nProject Wrenfield ships Friday.")).toEqual([
      ["Project Layout", "weak"],
      ["Project Wrenfield", "strong"],
    ]);
    expect(strengths("Create Ledger Report\nwe also asked the Ledger team")).toEqual([
      ["Create Ledger Report", "weak"],
      ["Ledger team", "strong"],
    ]);
  });

  it("keeps descriptors within a sentence and off determiners, and addresses to domains with a name", () => {
    expect(found("Press Save Form.\nThe Project runs late.").map((m) => m.type)).not.toContain("project");
    expect(found("Your Project is next").map((m) => m.name)).not.toContain("Project Your");
    expect(found("pinned actions-cache@v3.2.1 today")).toEqual([]);
    expect(found("cc halden@ferrow.co.uk")[0]).toMatchObject({ name: "halden@ferrow.co.uk", type: "person" });
  });

  it("records a role stated beside a person's name", () => {
    const [person] = textMentions("We asked Mira Castell, our CISO, to sign.", "message");
    expect(person).toMatchObject({
      name: "Mira Castell",
      type: "person",
      metadata: { roles: ["chief information security officer"] },
    });
  });

  it("reads fact keys by their cue words, and offers every other run of words as weak", () => {
    const strong = (key: string) =>
      keyMentions(key)
        .filter((m) => m.strength === "strong")
        .map((m) => [m.name, m.type]);
    expect(strong("project_heron_budget")).toEqual([["Project Heron", "project"]]);
    expect(strong("projectBudget")).toEqual([]);
    expect(strong("ciso_signoff")).toEqual([["chief information security officer", "role"]]);
    expect(strong("billing_team_size")).toEqual([["Billing team", "team"]]);
    expect(strong("head_of_legal_email")).toEqual([["head of legal", "role"]]);
    const weak = keyMentions("heron_launch_date")
      .filter((m) => m.strength === "weak")
      .map((m) => m.text);
    expect(weak).toContain("heron");
    expect(weak).toContain("heron launch");
    expect(weak).not.toContain("date");
  });

  it("reads the thread identity: the user with id, email domain and title, and the organisation", () => {
    const [user, org] = identityMentions({
      user_id: "wren@saltmarsh.dev",
      user_name: "Wren Ito",
      authority: "CFO",
      organization: "Saltmarsh",
    });
    expect(user).toMatchObject({
      name: "Wren Ito",
      type: "person",
      metadata: {
        user_id: "wren@saltmarsh.dev",
        email: "wren@saltmarsh.dev",
        email_domain: "saltmarsh.dev",
        roles: ["chief financial officer"],
      },
    });
    expect(org).toMatchObject({
      name: "Saltmarsh",
      type: "organization",
      metadata: { email_domain: "saltmarsh.dev" },
    });
    expect(identityMentions({ user_id: "u-9" })).toHaveLength(1);
  });

  it("serves the rules through the MentionExtractor port, one list per input and origin", async () => {
    const lists = await new RuleMentionExtractor().extract([
      { text: "project_heron_owner", origin: "fact_key" },
      { text: "Assigned to Oskar Brandt", origin: "tool_output" },
    ]);
    expect(lists[0]?.find((m) => m.strength === "strong")?.name).toBe("Project Heron");
    expect(lists[1]?.map((m) => [m.name, m.origin])).toEqual([["Oskar Brandt", "tool_output"]]);
  });
});
