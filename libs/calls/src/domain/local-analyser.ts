// The local heuristic analyser, used when no AI is configured: a word-list sentiment (with
// negation) and frequency keywords, for English and Arabic (Modern Standard and common Gulf and
// Egyptian forms). No action items or summary: those need a model, and the result says which
// analyser produced it.

export interface LocalAnalysis {
  sentiment: 'positive' | 'neutral' | 'negative';
  keywords: string[];
  score: number;
}

// Arabic written forms folded together: diacritics and tatweel dropped, alef forms, taa marbuta and
// alef maqsura unified; Latin letters lower-cased.
export function normalizeWord(word: string): string {
  return word
    .toLowerCase()
    .replace(/[\u064B-\u0652\u0670\u0640]/g, '')
    .replace(/[أإآٱ]/g, 'ا')
    .replace(/ة/g, 'ه')
    .replace(/ى/g, 'ي')
    .replace(/ؤ/g, 'و')
    .replace(/ئ/g, 'ي');
}

const words = (text: string) => [...text.split(/\s+/)].filter(Boolean).map(normalizeWord);

const POSITIVE = new Set(
  words(`good great excellent happy thanks thank satisfied love perfect wonderful amazing pleased helpful resolved
  appreciate nice awesome glad interested agree fantastic recommend easy fast solved
  شكرا ممتاز ممتازه جيد جيده رائع رائعه سعيد مبسوط تمام حلو جميل ممنون اشكرك متشكر راضي موافق عظيم ممكن ماشي مناسب سريع احسن افضل حل`),
);
const NEGATIVE = new Set(
  words(`bad terrible awful angry unhappy disappointed problem problems issue broken refund cancel complaint worst hate slow
  late wrong poor frustrated fail failed failure expensive useless rude delay delayed
  سيء سيئ سيئه مشكله مشاكل زعلان غاضب تاخير متاخر الغاء استرجاع شكوي خربان عطل مستاء للاسف غلط غالي بطيء زفت مزعج`),
);
const NEGATORS = new Set(
  words(`not no never don didn doesn isn wasn aren weren won cannot can't without
  لا ما مش مو ليس لم لن بدون غير مافي`),
);
const STOPWORDS = new Set(
  words(`the a an and or but if then so to of in on at for with by from as is are was were be been being it its this that
  these those i you he she we they me him her us them my your our their what which who whom when where why how all any both each
  few more most other some such only own same than too very can will just should now do does did have has had hello hi yes okay ok
  um uh yeah well also there here about into out up down over again would could like get got going want know think call
  في من الي علي عن مع هذا هذه ذلك تلك التي الذي الذين هو هي هم انا انت انتم نحن كان كانت يكون ان او ثم لقد قد كل بعض ايضا
  هناك هنا عند اذا لو حتي بس يعني طيب اه ايوه نعم السلام عليكم مرحبا اهلا وعليكم شو ايش ليش كيف وين متي اللي دي ده كده`),
);

const TOKEN = /[\p{L}\p{N}]+/gu;

// Forms to look a word up by: itself, without a leading "و" (and), without "ال" (the), and both.
function forms(word: string): string[] {
  const out = [word];
  const noWaw = word.length > 3 && word.startsWith('و') ? word.slice(1) : word;
  if (noWaw !== word) out.push(noWaw);
  for (const w of [word, noWaw]) if (w.length > 4 && w.startsWith('ال')) out.push(w.slice(2));
  return out;
}

const inSet = (set: Set<string>, word: string) => forms(word).some((form) => set.has(form));

export function analyseLocally(text: string, maxKeywords = 8): LocalAnalysis {
  const tokens = (text.match(TOKEN) ?? []).map(normalizeWord);
  let score = 0;
  const counts = new Map<string, { count: number; first: number }>();
  tokens.forEach((token, index) => {
    const polarity = inSet(POSITIVE, token) ? 1 : inSet(NEGATIVE, token) ? -1 : 0;
    if (polarity !== 0) {
      const negated = [tokens[index - 1], tokens[index - 2]].some((before) => before !== undefined && NEGATORS.has(before));
      score += negated ? -polarity : polarity;
    }
    // Keywords are topics: sentiment words, stop words and numbers are not; "وال…" (and the …) counts as "ال…".
    if (polarity !== 0 || token.length < 3 || /^\p{N}+$/u.test(token) || inSet(STOPWORDS, token) || NEGATORS.has(token)) return;
    const key = token.length > 4 && token.startsWith('وال') ? token.slice(1) : token;
    const entry = counts.get(key);
    if (entry) entry.count += 1;
    else counts.set(key, { count: 1, first: index });
  });
  const keywords = [...counts.entries()]
    .sort(([, a], [, b]) => b.count - a.count || a.first - b.first)
    .slice(0, maxKeywords)
    .map(([word]) => word);
  return { sentiment: score > 0 ? 'positive' : score < 0 ? 'negative' : 'neutral', keywords, score };
}
