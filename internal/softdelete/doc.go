// Package softdelete keeps the deleted generations of a named resource (a
// blob container, a file share) restorable: the state machine both
// services' soft delete share.
//
// A deleted generation is one record under Prefix(acct) name version,
// where version is the deletion time as Azure spells deleted versions
// (azhttp.DeletedVersion, stepped by 100 ns while a generation of the
// name already has it). The record is the caller's own type (its field
// names are its stored format); it tells its state, its purge time and
// its state setter through Gen. Its states:
//
//   - Moving: the caller's delete transaction dropped the live resource
//     and wrote the record; its keys are moving from the name to the
//     alias "name/version" (never a live name: it has a slash).
//   - AtRest: every key is under the alias.
//   - Restoring: a restore marked it; its keys are moving back from the
//     alias to the name, and a last transaction makes it live again and
//     drops the record.
//
// Keys move in transactions of bounded size (kv.MovePrefix, in the
// caller's MoveAside and FinishRestore), so a crash can leave a move half
// done. Crash rules: nothing reads a moving generation's keys; a moving
// or restoring generation blocks a new resource of its name (Moving
// reports it, the caller answers its BeingDeleted error); Finish runs
// every pending move of a name to its end, and the caller calls it
// before each create, restore and purge of the name; Sweep, at start-up
// and on each purge, finishes the moves Pending found and purges the
// expired generations.
//
// The caller supplies: the store, a View that waits as its reads do, the
// key Prefix of an account's deleted generations, MoveAside (move every
// key of the name to the alias; may run again after a crash) and
// FinishRestore (move the keys back and make the resource live). Its
// delete transaction, its restore checks and errors, its purge of an
// alias's keys and its listings stay its own.
package softdelete
