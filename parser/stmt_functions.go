package parser

// ShowFunctions is SHOW FUNCTIONS: the functions streamql has (SPEC 2.10, 3).
type ShowFunctions struct{ Range }
