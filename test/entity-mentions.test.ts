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
    // A capitalised "Project" before a name opens that name: "Launch Project Wrenfield" is no "Project Launch".
    expect(found("Approved: Launch Project Wrenfield in Q3", "message").map((m) => m.name)).toEqual([
      "Project Wrenfield",
    ]);
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

  it("reads a product's part, a title, a label, a time zone and a kind in conversation as weak", () => {
    const strengths = (text: string, origin: "message" | "fact_value" = "message") =>
      textMentions(text, origin).map((m) => [m.text, m.type, m.strength]);
    // A product's part: its last word an acronym.
    expect(strengths("We moved billing onto the Tindle CLI and the Harrowgate DNS last week.")).toEqual([
      ["Tindle CLI", "tool", "weak"],
      ["Harrowgate DNS", "other", "weak"],
    ]);
    // A title is no name of its own; before a name it says a person is meant.
    expect(strengths("I'm Odile, Vendor Relations Manager at Pemberly Foods.")).toEqual([
      ["Odile", "other", "weak"],
      ["Vendor Relations Manager", "other", "weak"],
      ["Pemberly Foods", "other", "strong"],
    ]);
    expect(strengths("we asked Ops Director Halvard Nyquist to sign")).toEqual([
      ["Halvard Nyquist", "person", "strong"],
    ]);
    // Labels: an error or a control named by the word after it, or by a status code before it.
    expect(strengths('the app shows a "Quota Window Exceeded" error, then 503 Gateway Unavailable')).toEqual([
      ["Quota Window Exceeded", "other", "weak"],
      ["Gateway Unavailable", "other", "weak"],
    ]);
    expect(strengths("then press the Export Ledger button")).toEqual([["Export Ledger", "other", "weak"]]);
    // A time zone, and a kind after an indefinite article.
    expect(strengths("the call is at nine, Central Andean Time, with a Data Steward from them")).toEqual([
      ["Central Andean Time", "other", "weak"],
      ["Data Steward", "other", "weak"],
    ]);
    // A date after a name is not part of it; a closing quote neither.
    expect(strengths("we ship Ridgeway Launch March 4 and the 'Salt Roads' pilot")).toEqual([
      ["Ridgeway Launch", "other", "strong"],
      ["Salt Roads", "other", "strong"],
    ]);
    // Inside a sentence a name stays strong; a fact's value is data and keeps every run strong.
    expect(strengths("we met Ilse Marwood from Quillon Freight")).toEqual([
      ["Ilse Marwood", "other", "strong"],
      ["Quillon Freight", "other", "strong"],
    ]);
    expect(strengths("the Tindle CLI", "fact_value")).toEqual([["Tindle CLI", "tool", "strong"]]);
  });

  it("reads headings and bold text in conversation as title case, not names", () => {
    const strengths = (text: string) => textMentions(text, "message").map((m) => [m.text, m.strength]);
    expect(strengths("### 4. Wire Up Lantern Analytics\nthen restart")).toEqual([
      ["Wire Up Lantern Analytics", "weak"],
    ]);
    expect(strengths("- then **Open the Quarry Console Page** and save")).toEqual([
      ["Open", "weak"],
      ["Quarry Console Page", "weak"],
    ]);
    expect(strengths("Then: **Start with Project Marlpit Images**")).toEqual([
      ["Start", "weak"],
      ["Project Marlpit Images", "weak"],
    ]);
  });

  it("reads descriptors in conversation for what they name: not a kind, a part of a tool or a description", () => {
    const named = (text: string) => textMentions(text, "message").map((m) => [m.name, m.type, m.strength]);
    // A technology's styling makes a tool's part; a team keeps its name.
    expect(named("push it to the GitLab repo, watch the CI pipeline and tell the QA team")).toEqual([
      ["GitLab repo", "system", "weak"],
      ["CI pipeline", "system", "weak"],
      ["QA team", "team", "strong"],
    ]);
    expect(named("check the Fernway.io dashboard")).toEqual([["Fernway.io dashboard", "system", "weak"]]);
    // A kind, after an indefinite article; a named one stays strong.
    expect(named("I set up a Quillon project; the Kestrel service is fine")).toEqual([
      ["Project Quillon", "project", "weak"],
      ["Kestrel service", "system", "strong"],
    ]);
    // A group in common words is a gathering; a named one is a team.
    expect(named("the grief support group met, and so did the Orion group")).toEqual([
      ["Grief support group", "team", "weak"],
      ["Orion group", "team", "strong"],
    ]);
    // Adjectives and participles describe: what is left is the name, or nothing.
    expect(named("compare the existing database with the redesigned dashboard")).toEqual([]);
    expect(named("alerts go to your specified Larchmont channel")).toEqual([
      ["Larchmont channel", "system", "strong"],
    ]);
    // Two phrases are not one: an article or "as" between the words, or the second half of "CI/CD".
    expect(named("you do our town a service; we work on the street as a team")).toEqual([]);
    expect(named("our CI/CD pipeline runs nightly").map(([name]) => name)).not.toContain("CD pipeline");
    // A heading's words, and a label named by the word after it.
    expect(named('click the "Generate Ledger report" button')).toEqual([
      ["Generate Ledger report", "document", "weak"],
    ]);
  });

  it("reads small talk's common nouns as no place, and a place's proper name as one", () => {
    const named = (text: string) => textMentions(text, "message").map((m) => [m.name, m.type, m.strength]);
    // A determiner or a word of place opens a second phrase: the drizzle, and an office, are not one name.
    expect(named("any thoughts on the drizzle outside the office today?")).toEqual([]);
    expect(named("how was the sandwich place beside our warehouse")).toEqual([]);
    expect(named("is the parking behind the campus still free?")).toEqual([]);
    // Common nouns in lower case before a place's head describe one: at most a weak mention.
    expect(named("the muffins at the bakery office were stale")).toEqual([
      ["Bakery office", "place", "weak"],
    ]);
    // A place named by a proper name stays one, in conversation as in a fact.
    expect(named("I moved to our Tallinn office and ship from the Quenby Road warehouse")).toEqual([
      ["Tallinn office", "place", "strong"],
      ["Quenby Road warehouse", "place", "strong"],
    ]);
    // A qualifier in a compound is still one word ("after-hours"), and other heads keep lower-case names.
    expect(named("page the after-hours team about the ingest pipeline")).toEqual([
      ["After-hours team", "team", "strong"],
      ["Ingest pipeline", "system", "strong"],
    ]);
  });

  it("reads a title beside a function, software that manages things, and markup as no person and no role", () => {
    expect(found("[Partner Success (Account Lead)]: taking this over")[0]).toMatchObject({
      text: "Partner Success",
      type: "other",
    });
    expect(found("use your package manager, the login manager and the html head section")).toEqual([]);
    expect(found("ask the department head and the hiring manager").map((m) => [m.name, m.type])).toEqual([
      ["department head", "role"],
      ["hiring manager", "role"],
    ]);
    expect(found("send it to accounts@vellmoor.studio")[0]?.type).toBe("team");
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
