output "arn" {
  description = "Unqualified ARN of the function."
  value       = aws_lambda_function.this.arn
}

output "invoke_arn" {
  description = "ARN API Gateway uses to invoke the function."
  value       = aws_lambda_function.this.invoke_arn
}

output "function_name" {
  description = "Name of the function."
  value       = aws_lambda_function.this.function_name
}

output "role_arn" {
  description = "ARN of the function's execution role."
  value       = aws_iam_role.this.arn
}

output "qualifier" {
  description = "Alias triggers invoke (live, with SnapStart), or null: the unqualified function."
  value       = var.snap_start ? aws_lambda_alias.live[0].name : null
}

output "target_arn" {
  description = "ARN triggers invoke: the live alias with SnapStart, otherwise the unqualified function."
  value       = var.snap_start ? aws_lambda_alias.live[0].arn : aws_lambda_function.this.arn
}

output "target_invoke_arn" {
  description = "Invoke ARN for API Gateway: the live alias's with SnapStart, otherwise the function's."
  value       = var.snap_start ? aws_lambda_alias.live[0].invoke_arn : aws_lambda_function.this.invoke_arn
}
