package script

import "github.com/dop251/goja"

// prelude shapes the global environment the way Cosmos DB's does before a
// script runs: the ErrorCodes table (frozen, as scripts compare against
// it) and an Error constructor that also takes Cosmos DB's
// (number, message) form. The replacement shares the built-in prototype,
// so instanceof Error, the built-in subclasses and `class … extends Error`
// behave as before.
var prelude = goja.MustCompile("prelude", `
var ErrorCodes = Object.freeze({
	BadRequest: 400,
	Forbidden: 403,
	NotFound: 404,
	Conflict: 409,
	PreconditionFailed: 412,
	RequestEntityTooLarge: 413,
	RetryWith: 449,
	InternalServerError: 500
});
Error = (function (NativeError) {
	function Error(a, b) {
		var e;
		if (typeof a === "number" && arguments.length > 1) {
			e = new NativeError(b);
			e.number = a;
		} else if (arguments.length > 0) {
			e = new NativeError(a);
		} else {
			e = new NativeError();
		}
		if (new.target && new.target !== Error) {
			Object.setPrototypeOf(e, new.target.prototype);
		}
		return e;
	}
	Error.prototype = NativeError.prototype;
	Object.defineProperty(NativeError.prototype, "constructor", {value: Error, writable: true, configurable: true});
	return Error;
})(Error);
`, false)
