import type { AskNode } from './nodes';

// A customer's answer to an ask, read by the ask's validation: the value to save and, for a
// choice, the node it leads to; or undefined when the answer does not pass.
export interface Answer {
  value: string | number;
  next: string | undefined;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const MAX_ANSWER = 4096;

export function readAnswer(node: AskNode, raw: string): Answer | undefined {
  const text = raw.trim();
  if (text === '' || text.length > MAX_ANSWER) return undefined;
  switch (node.validate) {
    case 'text':
      return { value: text, next: node.next };
    case 'number': {
      // A decimal comma is read as a point ("2,5"); thousands separators are not numbers.
      const number = /^[-+]?\d+([.,]\d+)?$/.test(text) ? Number(text.replace(',', '.')) : NaN;
      return Number.isFinite(number) ? { value: number, next: node.next } : undefined;
    }
    case 'email':
      return EMAIL.test(text) && text.length <= 320 ? { value: text.toLowerCase(), next: node.next } : undefined;
    case 'phone': {
      // Digits with an optional leading +, spaces, dots, dashes and brackets: 6 to 15 digits.
      if (!/^\+?[\d\s().-]+$/.test(text)) return undefined;
      const digits = text.replace(/\D/g, '');
      if (digits.length < 6 || digits.length > 15) return undefined;
      return { value: `${text.startsWith('+') ? '+' : ''}${digits}`, next: node.next };
    }
    case 'choice': {
      const choice = chosen(node, text);
      return choice ? { value: choice.value, next: choice.next ?? node.next } : undefined;
    }
  }
}

// A choice by its number in the list (1, 2, ...), its value or its label, without regard to case.
function chosen(node: AskNode, text: string) {
  const choices = node.choices ?? [];
  if (/^\d+$/.test(text)) {
    const number = Number(text);
    if (number >= 1 && number <= choices.length) return choices[number - 1];
  }
  const folded = text.toLocaleLowerCase('en-US');
  return choices.find((choice) => choice.value.toLocaleLowerCase('en-US') === folded || choice.label.toLocaleLowerCase('en-US') === folded);
}

// The question as sent: a choice ask lists its choices, numbered, one a line.
export function questionText(node: AskNode, rendered: string): string {
  if (node.validate !== 'choice' || !node.choices?.length) return rendered;
  return [rendered, ...node.choices.map((choice, index) => `${index + 1}. ${choice.label}`)].join('\n');
}

// Whether a customer's message starts a flow of this trigger (texts compared without regard to case).
export function keywordMatches(keywords: readonly string[], match: 'equals' | 'contains' | 'starts_with', raw: string): boolean {
  const text = raw.trim().toLocaleLowerCase('en-US');
  return keywords.some((keyword) => {
    const folded = keyword.toLocaleLowerCase('en-US');
    return match === 'equals' ? text === folded : match === 'contains' ? text.includes(folded) : text.startsWith(folded);
  });
}

// A finish keyword is the whole message, without regard to case or surrounding spaces.
export const isFinishKeyword = (keywords: readonly string[], raw: string): boolean => keywordMatches(keywords, 'equals', raw);
