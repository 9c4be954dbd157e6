// @ts-check
// The API's complaints in people's words. The service's own messages ("is not an IANA time zone")
// already read well and are kept; the validation library's generic ones ("Too small: expected string
// to have >=1 characters", "Invalid option: expected one of …") become what to do, named after the
// field as the form labels it ("Enter a name", "Choose at least one event").

/** "a name", "an endpoint URL". @param {string} noun */
const article = (noun) => `${/^[aeiou]/i.test(noun) && !/^(u[rs]|eu)/i.test(noun) ? "an" : "a"} ${noun}`;

/** The label as it reads inside a sentence: lower case, except words in capitals (URL, ID, SFTP). @param {string} label */
const inSentence = (label) =>
  label
    .split(" ")
    .map((w) => (/^[A-Z0-9]{2,}$/.test(w) || /^[A-Z][a-z]*[A-Z]/.test(w) ? w : w.toLowerCase()))
    .join(" ");

/** A field path's last part as words: `destination.containerUrl` → "container URL". @param {string} field */
export function labelOfField(field) {
  const last =
    field
      .split(".")
      .at(-1)
      ?.replace(/\[\d+\]$/, "") ?? field;
  const words = last
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(" ")
    .map((w) => (/^(url|id|ip)$/i.test(w) ? w.toUpperCase() : w.toLowerCase()))
    .join(" ");
  return words || "value";
}

/** "events" → "event". @param {string} noun */
const singular = (noun) => noun.replace(/ies$/, "y").replace(/(?<!s)s$/, "");

/**
 * What the complaint asks of the person, in their words.
 * @param {string} message the API's `details[].message`
 * @param {string} label the field's label on the form (or words made of the field's name)
 */
export function inWords(message, label) {
  const noun = inSentence(label);
  let m;
  if (/^Invalid input: expected \w+, received undefined$/.test(message) || /^Required$/.test(message))
    return `Enter ${article(noun)}`;
  if ((m = /^Too small: expected string to have >=(\d+) characters?$/.exec(message)))
    return m[1] === "1" ? `Enter ${article(noun)}` : `Enter at least ${m[1]} characters`;
  if ((m = /^Too big: expected string to have <=(\d+) characters?$/.exec(message)))
    return `Shorten it to at most ${Number(m[1]).toLocaleString("en-GB")} characters`;
  if ((m = /^Too small: expected array to have >=(\d+) items?$/.exec(message)))
    return m[1] === "1" ? `Choose at least one ${singular(noun)}` : `Choose at least ${m[1]} ${noun}`;
  if ((m = /^Too big: expected array to have <=(\d+) items?$/.exec(message))) return `Choose at most ${m[1]} ${noun}`;
  if ((m = /^Too small: expected number to be >=?(-?[\d.]+)$/.exec(message)))
    return `Enter a number of at least ${m[1]}`;
  if ((m = /^Too big: expected number to be <=?(-?[\d.]+)$/.exec(message))) return `Enter a number of at most ${m[1]}`;
  if (
    /^Invalid input: expected (number|int), received \w+$/.test(message) ||
    /^Invalid input: expected int/.test(message)
  )
    return "Enter a whole number";
  if (/^Invalid (input: expected )?(URL|url)/.test(message)) return "Enter a full URL, starting with https://";
  if (/^Invalid option: expected one of/.test(message) || /^Invalid input: expected .*received/.test(message))
    return `Choose ${article(singular(noun))} from the list`;
  if (/^Unrecognized keys?:/.test(message)) return "This field is not part of this form";
  if (/^Invalid (input|string|ISO datetime|date)/.test(message))
    return `Check the ${noun}: it is not in the expected form`;
  return message;
}
