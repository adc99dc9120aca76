package query

// Occur is how a clause takes part in a boolean search node, as in Lucene.
type Occur int

const (
	Should Occur = iota
	Must
	MustNot
)

// SearchNode is a node of a parsed search text (simple or full syntax).
// Pos is the byte offset of the node in the search text.
type SearchNode interface {
	Pos() int
}

// Clause is one operand of a BoolNode.
type Clause struct {
	Occur Occur
	Node  SearchNode
}

// Leaf fields shared by every term-like node. Field is the path a fielded
// term named ("" searches the request's search fields); Boost is 0 when no
// ^n was given.
type Leaf struct {
	At    int
	Field string
	Boost float64
}

// Pos implements SearchNode.
func (l Leaf) Pos() int { return l.At }

// BoolNode combines clauses with Lucene's occur semantics: every Must and
// no MustNot clause has to match; Should clauses are optional when a Must
// clause exists and at least one has to match otherwise.
type BoolNode struct {
	At      int
	Clauses []Clause
	Boost   float64
}

// Pos implements SearchNode.
func (b *BoolNode) Pos() int { return b.At }

// NotNode matches every document the child does not match (the simple
// syntax's "-term", which Azure reads as "or not term" under searchMode=any).
type NotNode struct {
	At    int
	Child SearchNode
}

// Pos implements SearchNode.
func (n *NotNode) Pos() int { return n.At }

// MatchAllNode is "*" on its own.
type MatchAllNode struct{ At int }

// Pos implements SearchNode.
func (m *MatchAllNode) Pos() int { return m.At }

// TermNode is a plain term, analyzed with the field's analyzer.
type TermNode struct {
	Leaf
	Text string
}

// PhraseNode is "a quoted phrase"; Slop is the proximity distance of
// "..."~n, 0 for an exact phrase.
type PhraseNode struct {
	Leaf
	Text string
	Slop int
}

// PrefixNode is term* (the prefix is not analyzed, only lowercased).
type PrefixNode struct {
	Leaf
	Prefix string
}

// WildcardNode is a term with * or ? inside.
type WildcardNode struct {
	Leaf
	Pattern string
}

// RegexNode is /regex/.
type RegexNode struct {
	Leaf
	Pattern string
}

// FuzzyNode is term~n, n edits (0–2).
type FuzzyNode struct {
	Leaf
	Text     string
	Distance int
}

// RangeNode is [a TO b] / {a TO b}; an empty bound with its Open flag set
// is "*" (unbounded).
type RangeNode struct {
	Leaf
	Lower, Upper               string
	LowerOpen, UpperOpen       bool
	IncludeLower, IncludeUpper bool
}
