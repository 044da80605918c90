variable "name" {
  description = "Name of the HTTP API."
  type        = string
}

variable "function_name" {
  description = "Name of the function behind the API (stream-api)."
  type        = string
}

variable "function_invoke_arn" {
  description = "Invoke ARN of the function behind the API (its alias's, when it has one)."
  type        = string
}

variable "function_qualifier" {
  description = "Alias the API invokes (with SnapStart), or null for the unqualified function."
  type        = string
  default     = null
}

variable "route_keys" {
  description = "Routes sent to the function, e.g. \"ANY /api/{proxy+}\" (function.trigger.routes)."
  type        = list(string)

  validation {
    condition     = length(var.route_keys) > 0 && alltrue([for r in var.route_keys : can(regex("^(ANY|GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) /", r))])
    error_message = "route_keys must be non-empty and each '<METHOD> /path', e.g. 'ANY /api/{proxy+}'."
  }
}

variable "public_route_keys" {
  description = "Routes sent to the function without the JWT authorizer: the web console's static files only, e.g. \"GET /console/{proxy+}\" (function.trigger.public-routes)."
  type        = list(string)
  default     = []

  validation {
    condition     = alltrue([for r in var.public_route_keys : can(regex("^GET /console(/\\{proxy\\+\\})?$", r))])
    error_message = "public_route_keys may only hold 'GET /console' and 'GET /console/{proxy+}': every other route needs the authorizer."
  }
}

variable "jwt_issuer" {
  description = "Issuer URL of the JWTs the authorizer accepts."
  type        = string
}

variable "jwt_audience" {
  description = "Audiences the authorizer accepts."
  type        = list(string)
}

variable "log_retention_days" {
  description = "Days CloudWatch keeps the access logs."
  type        = number
}

variable "throttling_burst_limit" {
  description = "Burst limit of the stage's default route settings."
  type        = number
}

variable "throttling_rate_limit" {
  description = "Steady requests per second of the stage's default route settings."
  type        = number
}
